import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { spendSlot } from "../../src/budget/spend-slot.ts";
import type { ChatSession } from "../../src/durable/chat-session.ts";
import { helpersSlot } from "../../src/helpers/helper-slots.ts";
import { openaiCompletion } from "../fakes/bodies.ts";
import type { RecordedRequest, ScriptedResponse } from "../fakes/server.ts";
import {
  admin,
  buttonPress,
  fakes,
  GROUP_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
  session,
  textUpdate,
} from "./helpers.ts";

type OpenAiBody = {
  messages: { role: string; content: unknown; tool_calls?: { function: { name: string; arguments: string } }[] }[];
  tools?: { function: { name: string } }[];
};

/** The bot's messages in a chat, in order, with their texts. */
async function sentTexts(chatId = PRIVATE_CHAT): Promise<string[]> {
  return (await fakes.requests("telegram", { method: "sendMessage", chatId })).map((request) => sentText(request));
}

/** Waits for a message to the chat containing `text` (polling the fake's log, no fixed sleep). */
async function messageContaining(text: string, chatId = PRIVATE_CHAT): Promise<RecordedRequest> {
  await expect
    .poll(async () => (await sentTexts(chatId)).some((sent) => sent.includes(text)), { timeout: 15_000 })
    .toBe(true);
  const found = (await fakes.requests("telegram", { method: "sendMessage", chatId })).find((request) =>
    sentText(request).includes(text),
  );
  return found!;
}

/** The helper's model calls: those whose system prompt says it is a background helper. */
async function helperCalls(): Promise<OpenAiBody[]> {
  return (await fakes.requests("openai"))
    .map((request) => request.body as OpenAiBody)
    .filter((body) => String(body.messages[0]?.content).includes("background helper for this chat"));
}

const spawnCall = (task: string, extra: Record<string, unknown> = {}): ScriptedResponse => ({
  ...openaiToolCalls([{ name: "spawn", arguments: { task, ...extra } }]),
});

/** A helper's model answer: only for the helper whose task contains `task`. */
function forHelper(task: string, response: ScriptedResponse): ScriptedResponse {
  return { ...response, when: ["background helper for this chat", task] };
}

describe("a background helper", () => {
  it("starts from a turn, works while the chat answers another message, and reports into the chat and its history", async () => {
    await fakes.script(
      "openai",
      {
        ...spawnCall("Research three options for a standing desk and compare price and size", {
          label: "standing desks",
        }),
        when: ["research three options"],
      },
      { ...openaiText("I've asked a helper; its report will follow here."), when: ["Helper #1 is working"] },
      // The helper reads a page, then takes its time to write.
      forHelper(
        "standing desk",
        openaiToolCalls([{ name: "web_fetch", arguments: { url: `${env.FAKES_URL}/web/desks` } }]),
      ),
      forHelper("standing desk", {
        ...openaiText("Desk A is cheapest; desk B is widest; desk C is both."),
        delayMs: 1_500,
      }),
    );
    await fakes.script("web", { path: "/web/desks", text: "Desk A $200, Desk B 180 cm, Desk C $250 and 180 cm" });

    await say("research three options in the background and tell me", { count: 2 });
    // The chat goes on: the next message is answered while the helper works.
    const meanwhile = await postUpdate(textUpdate("and what is 2+2?"));
    expect(meanwhile.status).toBe(200);
    await messageContaining("echo: and what is 2+2?");
    const report = await messageContaining("Desk A is cheapest");

    const texts = await sentTexts();
    const started = texts.findIndex((text) => text.includes("Helper #1 started: standing desks"));
    const told = texts.findIndex((text) => text.includes("its report will follow here"));
    const other = texts.findIndex((text) => text.includes("echo: and what is 2+2?"));
    const reported = texts.findIndex((text) => text.includes("Desk A is cheapest"));
    expect(started).toBeGreaterThanOrEqual(0);
    expect(told).toBeGreaterThan(started);
    expect(other).toBeGreaterThan(told);
    expect(reported).toBeGreaterThan(other);
    expect(sentText(report)).toContain("Helper #1: standing desks");
    // Its start line carried a Stop button; it is gone once the report is in.
    const start = (await fakes.requests("telegram", { method: "sendMessage" })).find((request) =>
      sentText(request).includes("Helper #1 started"),
    );
    expect(JSON.stringify(start?.body)).toContain('"hstop:1"');
    await expect
      .poll(async () =>
        (await fakes.requests("telegram", { method: "editMessageText" })).some((edit) =>
          sentText(edit).includes("Helper #1 ended"),
        ),
      )
      .toBe(true);

    // The helper saw the task, not the conversation, and read the page.
    const [first] = await helperCalls();
    expect(first!.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(String(first!.messages[1]!.content)).toContain("standing desk");

    // The report is kept in the chat's history, so the model knows it on the next turn; its usage is the chat's.
    await fakes.script("openai", openaiText("Desk C, as the helper said."));
    await say("which one did you recommend?", { count: texts.length + 1 });
    const last = (await fakes.requests("openai")).at(-1)!.body as OpenAiBody;
    expect(JSON.stringify(last.messages)).toContain("Desk A is cheapest");
    const kinds = await runInDurableObject(session(PRIVATE_CHAT), (instance: ChatSession) =>
      instance.stores.usage.batch().records.map((row) => row.record.kind),
    );
    expect(kinds).toContain("helper");
    // It read a web page: its report says so, for provenance (the chat's turn that started it had not).
    const payloads = await runInDurableObject(session(PRIVATE_CHAT), (_instance, state) =>
      state.storage.sql.exec<{ payload: string }>("SELECT payload FROM inbox WHERE kind = 'helper'").toArray(),
    );
    expect(JSON.parse(payloads[0]!.payload)).toMatchObject({ outcome: "answered", untrustedSource: "a web page" });
  });

  it("has its own tool set: no sending to another chat, no scheduling, no further helpers", async () => {
    await fakes.script(
      "openai",
      { ...spawnCall("Look into the weather"), when: ["check the weather"] },
      { ...openaiText("Started."), when: ["Helper #1 is working"] },
      forHelper(
        "weather",
        openaiToolCalls([
          { name: "send_message", arguments: { text: "hi", chatId: GROUP_CHAT } },
          { name: "schedule_task", arguments: { prompt: "again", at: "2030-01-01T10:00:00Z" } },
          { name: "spawn", arguments: { task: "another" } },
        ]),
      ),
      forHelper("weather", openaiText("Sunny.")),
    );
    // The admin's own chat: even there a helper may not act on another chat.
    await say("check the weather with a helper", { count: 2 });
    await messageContaining("Sunny.");
    const [first, second] = await helperCalls();
    const offered = first!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(["recall", "web_fetch"]));
    for (const denied of [
      "send_message",
      "schedule_task",
      "spawn",
      "remember",
      "forget",
      "generate_image",
      "ask_user",
      "show_widget",
    ]) {
      expect(offered).not.toContain(denied);
    }
    const results = second!.messages
      .filter((message) => message.role === "tool")
      .map((message) => String(message.content));
    expect(results).toHaveLength(3);
    for (const result of results) expect(result).toContain("is not a tool a background helper may use");
    expect(await fakes.requests("telegram", { method: "sendMessage", chatId: GROUP_CHAT })).toEqual([]);
    expect(((await (await admin(`/chats/${PRIVATE_CHAT}/tasks`)).json()) as { tasks: unknown[] }).tasks).toEqual([]);
  });

  it("stops at its time limit and says so", async () => {
    await fakes.script(
      "openai",
      { ...spawnCall("Slow research", { timeLimitSeconds: 1 }), when: ["slow one"] },
      { ...openaiText("Started."), when: ["Helper #1 is working"] },
      forHelper("Slow research", { ...openaiText("too late"), delayMs: 5_000 }),
    );
    await say("start a slow one", { count: 2 });
    const report = await messageContaining("ran out of time");
    expect(sentText(report)).toContain("(1 s)");
    expect(await sentTexts()).not.toContain("too late");
  });

  it("is listed by /tasks and ended by /stop of the person who asked, or by an admin; not by others", async () => {
    await fakes.script(
      "openai",
      { ...spawnCall("Long job for the group", { label: "long job" }), when: ["long job please"] },
      { ...openaiText("Started."), when: ["Helper #1 is working"] },
      forHelper("Long job", { ...openaiText("done late"), delayMs: 8_000 }),
    );
    // In a group, user 1002 asks; user 5 may not stop it; the admin (1001) may.
    const group = { chatId: GROUP_CHAT, fromId: 1002 };
    await postUpdate(textUpdate("@testbot long job please", group));
    await messageContaining("Started.", GROUP_CHAT);
    await postUpdate(textUpdate("/tasks", group));
    expect(sentText(await messageContaining("Background helpers", GROUP_CHAT))).toContain("#1 long job");

    const start = (await fakes.requests("telegram", { method: "sendMessage", chatId: GROUP_CHAT })).find((request) =>
      sentText(request).includes("Helper #1 started"),
    )!;
    const messageId = (start.result as { message_id: number }).message_id;
    const data = JSON.stringify(start.body).match(/"(hstop:[^"]+)"/)![1]!;
    expect(data).toBe("hstop:1");
    await postUpdate(buttonPress(data, { chatId: GROUP_CHAT, fromId: 5, messageId }));
    const [refusal] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect(JSON.stringify(refusal?.body)).toContain("Only the person who asked, or an admin");

    await postUpdate(textUpdate("/stop", group));
    await messageContaining("Stopping helper #1", GROUP_CHAT);
    const report = await messageContaining("stopped before it finished", GROUP_CHAT);
    expect(sentText(report)).toContain("Helper #1: long job");
    expect(await sentTexts(GROUP_CHAT)).not.toContain("done late");
    await postUpdate(textUpdate("/tasks", group));
    await messageContaining("No scheduled tasks", GROUP_CHAT);
    expect((await sentTexts(GROUP_CHAT)).filter((text) => text.includes("Background helpers"))).toHaveLength(1);
  });

  it("is ended by an admin's press of its Stop button, whoever asked", async () => {
    await fakes.script(
      "openai",
      { ...spawnCall("Another long job", { label: "another" }), when: ["another job please"] },
      { ...openaiText("Started."), when: ["Helper #1 is working"] },
      forHelper("Another long job", { ...openaiText("done late"), delayMs: 8_000 }),
    );
    await postUpdate(textUpdate("@testbot another job please", { chatId: GROUP_CHAT, fromId: 1002 }));
    const start = await messageContaining("Helper #1 started", GROUP_CHAT);
    const messageId = (start.result as { message_id: number }).message_id;
    await postUpdate(buttonPress("hstop:1", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, messageId }));
    const [answer] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect((answer!.body as { text: string }).text).toBe("Stopping…");
    expect(sentText(await messageContaining("stopped before it finished", GROUP_CHAT))).toContain("Helper #1: another");
  });

  it("gets a share of what the chat has left: two helpers together never get more than the chat has", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ budget: { dailyTokens: 10_000 } }),
    });
    const costly = (task: string): ScriptedResponse =>
      forHelper(task, {
        body: openaiCompletion(null, {
          toolCalls: [{ name: "recall", arguments: {} }],
          usage: { prompt_tokens: 1_500, completion_tokens: 500 },
        }),
      });
    await fakes.script(
      "openai",
      {
        ...openaiToolCalls([
          { name: "spawn", arguments: { task: "Task ALPHA" } },
          { name: "spawn", arguments: { task: "Task BETA" } },
        ]),
        when: ["two helpers"],
      },
      { ...openaiText("Both started."), when: ["Helper #2 is working"] },
      ...[1, 2, 3, 4].map(() => costly("Task ALPHA")),
      ...[1, 2, 3, 4].map(() => costly("Task BETA")),
    );
    await say("start two helpers", { count: 3 });
    await messageContaining("Helper #1: Task ALPHA");
    await messageContaining("Helper #2: Task BETA");

    const calls = await helperCalls();
    const alpha = calls.filter((call) => JSON.stringify(call.messages).includes("Task ALPHA")).length;
    const beta = calls.filter((call) => JSON.stringify(call.messages).includes("Task BETA")).length;
    // The turn had used 30 tokens: ALPHA got half of the 9,970 left (4,985), BETA half of the rest (2,492). At 2,000
    // tokens a call, ALPHA made two calls and BETA one: 6,000 of the 9,970.
    expect([alpha, beta]).toEqual([2, 1]);
    for (const text of await sentTexts()) {
      if (text.includes("Helper #1:") || text.includes("Helper #2:"))
        expect(text).toContain("share of today's token budget");
    }
    // Their holds are given back for what they used: the day's spend is the turn's and the helpers'.
    await expect
      .poll(() =>
        runInDurableObject(session(PRIVATE_CHAT), (instance: ChatSession) => ({
          tokens: instance.stores.meta.get(spendSlot)?.tokens,
          running: instance.stores.meta.get(helpersSlot)?.length,
        })),
      )
      .toEqual({ tokens: 30 + 15 + 6_000, running: 0 });
  });
});
