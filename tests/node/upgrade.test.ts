import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bot, startBot } from "../../bench/bot.ts";
import { BotClient, deliveredTo, messageText, modelCallWith } from "../../scripts/upgrade-fixtures/bot-client.ts";
import { copyFixture, fixtureReleases, readManifest } from "../../scripts/upgrade-fixtures/fixture-copy.ts";
import type { ChatName, Manifest } from "../../scripts/upgrade-fixtures/manifest.ts";
import { openaiCompletion } from "../fakes/bodies.ts";
import { type Fakes, type RecordedRequest, startFakes } from "../fakes/server.ts";

/**
 * Upgrades keep everything: each release's storage (tests/fixtures/upgrade/, recorded by
 * scripts/upgrade-fixtures/record.ts) is started under the current code, after the current D1 migrations, and used as
 * its people would: their chats go on with their history, memories, tasks, configs, skills and pairing, and what was
 * left waiting (an answer for Telegram, a due task, a message cut off by the shutdown) is done.
 */

/** Why wrangler cannot start here (not installed, or not runnable by this Node), if it cannot: the tests then skip. */
const unavailable = runtimeUnavailable();

describe.each(fixtureReleases())("upgrading from %s", (release) => {
  const manifest: Manifest = readManifest(release);
  let fakes: Fakes;
  let bot: Bot | undefined;
  let client: BotClient;
  let copy: string | undefined;
  const chat = (name: ChatName) => manifest.chats[name]!;

  beforeAll(async () => {
    if (unavailable) return;
    // Started before the bot: what the old release left due (alarms) is done as the runtime starts.
    fakes = await startFakes();
    copy = copyFixture(release, Date.now());
    // startBot applies this checkout's D1 migrations to the copy first, as `npm run deploy` does.
    bot = await startBot(fakes.url, { state: copy, vars: manifest.vars });
    client = new BotClient(bot, fakes, manifest.lastUpdateId + 1000);
  }, 120_000);

  afterAll(async () => {
    try {
      await bot?.stop();
      await fakes?.close();
    } finally {
      if (copy) rmSync(copy, { recursive: true, force: true, maxRetries: 3 });
    }
  });

  it("sends the answer that waited in the outbox once Telegram is back, once", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const owner = chat(manifest.waiting.chat);
    await client.request("the waiting answer", deliveredTo(owner, manifest.waiting.text));
    // A command answered after it has gone through the same outbox, in order: nothing of it waits any more.
    const from = client.mark();
    await client.say(owner, "/help");
    await client.request("/help's answer", deliveredTo(owner, "/tasks"), { from });
    expect(client.fakes.requests.filter(deliveredTo(owner, manifest.waiting.text))).toHaveLength(1);
    expect(await client.admin<{ waiting: number }>(`/chats/${owner.chatId}/outbox`)).toMatchObject({ waiting: 0 });
  });

  it("answers the message whose turn the shutdown cut off", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const marker = markerOf(manifest.inFlight.text);
    await client.request("the cut-off message's answer", deliveredTo(chat(manifest.inFlight.chat), marker));
  });

  it("runs the task that came due while it was down, and posts its answer", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const marker = markerOf(manifest.dueTask.prompt);
    await client.request("the due task's answer", deliveredTo(chat(manifest.dueTask.chat), marker), {
      timeoutMs: 30_000,
    });
  });

  it.for(["owner", "friend", "group", "topic"] as const)(
    "sends the %s chat's next message to the model its config names, with the old conversation",
    async (name, { skip }) => {
      if (unavailable) return skip(unavailable);
      const request = await nextTurn(name, `the ${name} chat again (UPGRADE-CHECK-${name})`);
      const { provider, model } = manifest.models[name]!;
      expect(request.service).toBe(provider);
      expect((request.body as { model?: unknown }).model).toBe(model);
      const shown = JSON.stringify(request.body);
      expect(
        manifest.conversations[name]!.filter((text) => !shown.includes(text)),
        "missing",
      ).toEqual([]);
    },
  );

  it("keeps the tool call and its result, the photo in R2, and the bot's skills in the owner's context", async ({
    skip,
  }) => {
    if (unavailable) return skip(unavailable);
    // It asks about the photo: an earlier image is sent again only while the conversation is about it.
    const request = await nextTurn(
      "owner",
      "what did we talk about, and what is in the photo? (UPGRADE-CHECK-CONTEXT)",
    );
    const body = request.body as OpenAiBody;
    const calls = body.messages.flatMap((message) => message.tool_calls ?? []);
    expect(calls.map((call) => call.function.name)).toEqual(expect.arrayContaining(["remember", "schedule_task"]));
    const results = body.messages.filter((message) => message.role === "tool").map((message) => message.content);
    expect(results).toEqual(expect.arrayContaining([expect.stringMatching(/^Remembered \(id \d+\)\.$/)]));
    // The photo is read back from R2 (the window's most recent images go with a call that is about them).
    expect(JSON.stringify(body.messages)).toMatch(/"url":"data:image\/[a-z]+;base64,[A-Za-z0-9+/=]{20,}"/);
    const system = JSON.stringify(body.messages.filter((message) => message.role === "system"));
    expect(
      manifest.skills.bot.filter((name) => !system.includes(name)),
      "skills missing from the prompt",
    ).toEqual([]);
  });

  it("finds the old memories with recall, and the old messages with search_history", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const when = ["(UPGRADE-CHECK-RECALL)"];
    const calls = [
      { name: "recall", arguments: { query: "bike blue" } },
      { name: "search_history", arguments: { query: manifest.searchable.query } },
    ];
    await client.script("openai", [
      { when, body: openaiCompletion(null, { toolCalls: calls }) },
      { when, body: openaiCompletion("Found them (UPGRADE-RECALLED).") },
    ]);
    const owner = chat("owner");
    const from = client.mark();
    await client.say(owner, "what do you know about my bike? (UPGRADE-CHECK-RECALL)");
    await client.request("the answer after recall", deliveredTo(owner, "UPGRADE-RECALLED"), { from });
    const second = client.fakes.requests.slice(from).filter(modelCallWith("UPGRADE-CHECK-RECALL"))[1];
    const results = (second?.body as OpenAiBody | undefined)?.messages.filter((message) => message.role === "tool");
    const [recalled, searched] = (results ?? []).slice(-2).map((message) => String(message.content));
    expect(
      manifest.memories.filter((memory) => !recalled?.includes(memory)),
      "memories not recalled",
    ).toEqual([]);
    expect(searched).toContain(manifest.searchable.finds);
  });

  it("lists the old tasks, through the admin API and /tasks", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const owner = chat("owner");
    const listed = await client.admin<{ tasks: { prompt: string; status: string }[] }>(`/chats/${owner.chatId}/tasks`);
    expect(listed.tasks.map((task) => task.prompt)).toEqual(expect.arrayContaining(manifest.tasks));
    expect(listed.tasks.every((task) => task.status === "active")).toBe(true);
    const from = client.mark();
    await client.say(owner, "/tasks");
    const answer = messageText(await client.request("/tasks' answer", deliveredTo(owner, "Scheduled tasks"), { from }));
    for (const prompt of manifest.tasks) expect(answer).toContain(markerOf(prompt));
  });

  it("keeps each chat's config valid and in the chat directory", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const { chats } = await client.admin<{ chats: DirectoryEntry[] }>("/chats");
    for (const [chatId, config] of Object.entries(manifest.configs)) {
      const entry = chats.find((listed) => listed.chatId === Number(chatId));
      expect(entry?.invalid, `chat ${chatId}`).toBeUndefined();
      expect(entry?.config, `chat ${chatId}`).toEqual(config);
    }
    for (const known of Object.values(manifest.chats)) {
      const entry = chats.find((listed) => listed.chatId === known.chatId);
      expect(entry, `chat ${known.chatId}`).toMatchObject({ type: known.type, lastActivityAt: expect.any(Number) });
      if (known.type !== "private") expect(entry?.title).toBe(known.name);
    }
  });

  it("keeps the group's summary and its skill", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const group = chat(manifest.skills.chat.chat);
    const from = client.mark();
    await client.say(group, "/summary");
    await client.request("the group's /summary", deliveredTo(group, markerOf(manifest.summary)), { from });
    const bot = await client.admin<{ skills: { name: string }[] }>("/skills");
    expect(bot.skills.map((skill) => skill.name)).toEqual(expect.arrayContaining(manifest.skills.bot));
    const own = await client.admin<{ skills: { name: string }[] }>(`/chats/${group.chatId}/skills`);
    expect(own.skills.map((skill) => skill.name)).toEqual(expect.arrayContaining(manifest.skills.chat.names));
    // Its `always` skill is in the group's system prompt, whole.
    const request = await nextTurn("group", "any plans? (UPGRADE-CHECK-SKILL)");
    const system = JSON.stringify((request.body as { system?: unknown }).system);
    expect(system.includes(manifest.skills.chat.alwaysText), "the always skill in the system prompt").toBe(true);
  });

  it("keeps the chats approved by pairing and the owner's admin rights", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const access = await client.admin<{ chats: { chatId: number }[]; admins: { userId: number }[] }>("/access");
    expect(access.chats.map((entry) => entry.chatId)).toEqual(expect.arrayContaining(manifest.access.chats));
    expect(access.admins.map((entry) => entry.userId)).toEqual(expect.arrayContaining(manifest.access.admins));
    // /approve answers an admin with the code's fate, anyone else with a refusal.
    const owner = chat("owner");
    const from = client.mark();
    await client.say(owner, "/approve ABCD-EFGH");
    await client.request("/approve's answer", deliveredTo(owner, "No chat is waiting"), { from });
  });

  it("keeps the usage recorded before the upgrade, and /status reads the chat's state", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const group = chat("group");
    const from = client.mark();
    await client.say(group, "/status");
    const status = messageText(await client.request("/status' answer", deliveredTo(group, "Provider"), { from }));
    expect(status).toContain(manifest.models.group!.model);
    expect(status).toContain("set for this chat");
    expect(status).not.toContain("⚠️");
    const { perChat } = await client.admin<{ perChat: { chatId: number; turns: number; inputTokens: number }[] }>(
      "/usage",
    );
    for (const before of manifest.usage) {
      const now = perChat.find((row) => row.chatId === before.chatId);
      expect(now?.turns, `chat ${before.chatId}`).toBeGreaterThanOrEqual(before.turns);
      expect(now?.inputTokens, `chat ${before.chatId}`).toBeGreaterThanOrEqual(before.inputTokens);
    }
  });

  it("reports no problem on /health", async ({ skip }) => {
    if (unavailable) return skip(unavailable);
    const health = await (await fetch(`${bot!.url}/health`)).json();
    expect(health).toMatchObject({ ok: true, missing: [], problems: [] });
    expect(health).not.toHaveProperty("waitingForTelegram");
  });

  /** Sends `text` in the chat (mentioning the bot in groups) and returns its model request once it was answered. */
  async function nextTurn(name: ChatName, text: string): Promise<RecordedRequest> {
    const target = chat(name);
    const marker = markerOf(text);
    const from = client.mark();
    await client.say(target, target.type === "private" ? text : `@testbot ${text}`);
    const request = await client.request(`${name}'s model call`, modelCallWith(marker), { from });
    await client.request(`${name}'s answer`, (sent) => sent.at >= request.at && answered(target.chatId)(sent), {
      from,
    });
    return request;
  }
});

interface OpenAiBody {
  messages: {
    role: string;
    content?: unknown;
    tool_calls?: { function: { name: string } }[];
  }[];
}

interface DirectoryEntry {
  chatId: number;
  config?: unknown;
  invalid?: string;
  type?: string;
  title?: string;
  lastActivityAt?: number;
}

/** A final message the bot sent to the chat (its answer, whatever its text). */
function answered(chatId: number): (request: RecordedRequest) => boolean {
  return (request) =>
    request.service === "telegram" &&
    request.refusal === undefined &&
    ["sendMessage", "sendRichMessage", "editMessageText"].includes(request.method) &&
    String((request.body as { chat_id?: unknown }).chat_id) === String(chatId);
}

/** The “(UPGRADE-…)” marker of a text the scenario wrote. */
function markerOf(text: string): string {
  const marker = /UPGRADE-[A-Z0-9-]+/.exec(text)?.[0];
  if (!marker) throw new Error(`no marker in “${text}”`);
  return marker;
}

function runtimeUnavailable(): string | undefined {
  const version = spawnSync("npx", ["wrangler", "--version"], {
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
  if (version.status !== 0) return `wrangler cannot start here: ${(version.stderr || version.stdout).trim()}`;
  return undefined;
}
