import { setupCodeOf } from "../../src/access/setup-code.ts";
import { anthropicMessage, openaiCompletion } from "../../tests/fakes/bodies.ts";
import type { RecordedRequest } from "../../tests/fakes/server.ts";
import { type BotClient, deliveredTo, messageText, modelCallWith } from "./bot-client.ts";
import { type FixtureChat, FRIEND, GROUP, OWNER, TOPIC } from "./fixture-bot.ts";
import type { Manifest } from "./manifest.ts";

/** What the scenario stored and saw; the recorder adds the release, the vars and the time. */
export type Recorded = Omit<Manifest, "release" | "commit" | "recordedAt" | "vars" | "lastUpdateId">;

const GROUP_CONFIG = {
  provider: "anthropic",
  model: "claude-upgrade-group",
  systemPrompt: "You help the Smith family (UPGRADE-SYSTEM-PROMPT).",
  timezone: "Europe/Berlin",
  enabled: true,
  tools: ["remember", "recall", "list_tasks", "web_fetch"],
  budget: { dailyTokens: 2_000_000, dailyCostUsd: "unlimited" },
  limits: { imagesPerDay: 5, searchesPerTurn: 2, speechCharactersPerDay: "unlimited" },
  fallbacks: [{ provider: "openai", model: "gpt-4o-mini" }],
  agentAccess: "admins",
  quoteTranscripts: true,
  voiceReplies: "off",
  richMessages: "off",
  showSteps: false,
};
const TOPIC_CONFIG = { provider: "openai", model: "gpt-4o-topic", fallbacks: [] };
const OWNER_CONFIG = { timezone: "Europe/Berlin", richMessages: "auto", showSteps: true, voiceReplies: "off" };

const PACKING_SKILL = `---
name: packing-list
description: How to write a packing list for a trip
---

PACKING-BODY: group the items by bag, and end with the travel documents.
`;
const TONE_SKILL = `---
name: house-tone
description: How this family wants answers written
always: true
---

UPGRADE-TONE-BODY: answer warmly and in short sentences.
`;

const SUMMARY = "UPGRADE-SUMMARY: the Smith family planned a picnic by the lake on Saturday.";
const GROUP_NOTES = 11;

/**
 * Drives a bot through its webhook and admin API until its storage holds every kind of data the bot keeps: chats of
 * each kind with their history (a tool call and its result included), memories, tasks, configs, skills, pairing,
 * usage, the chat directory, a summary, an answer waiting in an outbox and a message whose turn is cut off.
 * It ends with Telegram down and one model call hanging: the recorder stops the bot there.
 */
export async function fillStorage(client: BotClient): Promise<Recorded> {
  const turn = turnsOf(client);

  // The owner takes the bot with the setup code `npm run setup:telegram` prints.
  await client.say(OWNER, `/pair ${await setupCodeOf(client.bot.secret)}`);
  await turn.delivered(OWNER, "owner now");

  await client.admin(`/chats/${GROUP.chatId}/config`, { method: "PUT", body: GROUP_CONFIG });
  await client.admin(`/chats/${TOPIC.chatId}/config`, { method: "PUT", body: TOPIC_CONFIG });
  await client.admin(`/chats/${OWNER.chatId}/config`, { method: "PUT", body: OWNER_CONFIG });
  await client.admin("/skills", { method: "POST", body: { markdown: PACKING_SKILL }, status: 201 });
  await client.admin(`/chats/${GROUP.chatId}/skills`, { method: "POST", body: { markdown: TONE_SKILL }, status: 201 });

  // The owner: a photo (kept in R2), a fact remembered through a tool call, two tasks.
  await turn.plain(OWNER, "This is my bike (UPGRADE-PHOTO). What colour is it?", { photo: "bike" });
  const fact = "Ada's bike is blue (UPGRADE-MEMORY).";
  await turn.withTools(
    OWNER,
    "Please remember that my bike is blue (UPGRADE-REMEMBER).",
    [{ name: "remember", arguments: { fact } }],
    "I will remember that your bike is blue.",
  );
  const dentist = "Remind Ada of the dentist appointment (UPGRADE-TASK-ONCE).";
  const plants = "Remind Ada to water the plants (UPGRADE-TASK-CRON).";
  await turn.withTools(
    OWNER,
    "Remind me of the dentist in March 2099, and to water the plants every Monday (UPGRADE-SCHEDULE).",
    [
      { name: "schedule_task", arguments: { prompt: dentist, at: "2099-03-02T09:00:00", timezone: "Europe/Berlin" } },
      { name: "schedule_task", arguments: { prompt: plants, cron: "0 9 * * 1", timezone: "Europe/Berlin" } },
    ],
    "Both are scheduled.",
  );

  // The friend pairs: a code, approved by the owner in the owner's chat.
  const pairing = client.mark();
  await client.say(FRIEND, "/pair");
  const code = /[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}/.exec(
    messageText(await turn.delivered(FRIEND, "pairing code", pairing)),
  )?.[0];
  if (!code) throw new Error("the friend's /pair answer has no code");
  await client.say(OWNER, `/approve ${code}`);
  await turn.delivered(OWNER, "Approved");
  await turn.plain(FRIEND, "Hi, I'm Bob and I like chess (UPGRADE-FRIEND).");

  // The group on Anthropic: enough turns for a summary, which its model writes.
  await client.script("anthropic", [{ when: ["You keep the running summary"], body: anthropicMessage(SUMMARY) }]);
  for (let note = 1; note <= GROUP_NOTES; note++) {
    await turn.anthropic(
      GROUP,
      `@testbot note ${note} for the family (UPGRADE-GROUP-${note})`,
      `Noted ${note} (UPGRADE-GROUP-ANSWER-${note}).`,
    );
  }
  await client.request("the group's summary pass", modelCallWith("You keep the running summary"));
  await client.say(GROUP, "/summary");
  await turn.delivered(GROUP, "UPGRADE-SUMMARY");

  // A forum topic on its own model.
  await turn.plain(TOPIC, "@testbot the first topic note (UPGRADE-TOPIC-1)");
  await turn.plain(TOPIC, "@testbot the second topic note (UPGRADE-TOPIC-2)");

  // Every chat's usage so far reaches D1 (USAGE_FLUSH_SECONDS); what follows may stay buffered in the objects.
  const chats = [OWNER, FRIEND, GROUP, TOPIC];
  const usage = await client.until("every chat's usage in D1", async () => {
    const report = await client.admin<{ perChat: { chatId: number; turns: number; inputTokens: number }[] }>("/usage");
    return chats.every((chat) => report.perChat.some((row) => row.chatId === chat.chatId)) ? report.perChat : undefined;
  });

  // Minutes before it is due, a one-shot task: due when the upgraded code starts.
  const stretch = "Tell Bob to stretch his legs (UPGRADE-TASK-DUE).";
  const dueAt = new Date(Date.now() + 3 * 60_000).toISOString();
  await turn.withTools(
    FRIEND,
    "Remind me to stretch in three minutes (UPGRADE-SCHEDULE-DUE).",
    [{ name: "schedule_task", arguments: { prompt: stretch, at: dueAt } }],
    "I will remind you.",
  );

  // A message whose model call never answers: the shutdown cuts its turn.
  const inFlight = "@testbot a question cut off by the shutdown (UPGRADE-IN-FLIGHT)";
  await client.script("openai", [{ when: ["UPGRADE-IN-FLIGHT"], hang: true }]);
  const cut = client.mark();
  await client.say(TOPIC, inFlight);
  await client.request("the cut-off model call", modelCallWith("UPGRADE-IN-FLIGHT"), { from: cut });

  // Telegram goes down: the owner's answer waits in the outbox.
  const waiting = "Your bike is blue (UPGRADE-OUTBOX).";
  await client.telegram({ outage: { status: 502 } });
  await client.script("openai", [{ when: ["UPGRADE-ASK-OUTBOX"], body: openaiCompletion(waiting) }]);
  await client.say(OWNER, "What colour was my bike again? (UPGRADE-ASK-OUTBOX)");
  await client.until("the answer waiting in the owner's outbox", async () => {
    const state = await client.admin<{ waiting: number }>(`/chats/${OWNER.chatId}/outbox`);
    return state.waiting > 0 ? state : undefined;
  });

  const access = await client.admin<{ chats: { chatId: number }[]; admins: { userId: number }[] }>("/access");
  return {
    chats: { owner: OWNER, friend: FRIEND, group: GROUP, topic: TOPIC },
    conversations: {
      owner: [
        "UPGRADE-PHOTO",
        "UPGRADE-REMEMBER",
        fact,
        "I will remember that your bike is blue.",
        dentist,
        plants,
        "Both are scheduled.",
        "UPGRADE-ASK-OUTBOX",
        waiting,
      ],
      friend: ["UPGRADE-FRIEND", stretch, "I will remind you."],
      group: [`UPGRADE-GROUP-${GROUP_NOTES}`, `UPGRADE-GROUP-ANSWER-${GROUP_NOTES}`, "UPGRADE-SUMMARY"],
      topic: ["UPGRADE-TOPIC-1", "UPGRADE-TOPIC-2"],
    },
    models: {
      owner: { provider: "openai", model: "gpt-4o-upgrade" },
      friend: { provider: "openai", model: "gpt-4o-upgrade" },
      group: { provider: "anthropic", model: GROUP_CONFIG.model },
      topic: { provider: "openai", model: TOPIC_CONFIG.model },
    },
    configs: { [GROUP.chatId]: GROUP_CONFIG, [TOPIC.chatId]: TOPIC_CONFIG, [OWNER.chatId]: OWNER_CONFIG },
    memories: [fact],
    searchable: { query: "dentist", finds: "UPGRADE-SCHEDULE" },
    summary: SUMMARY,
    tasks: [dentist, plants],
    dueTask: { chat: "friend", prompt: stretch },
    waiting: { chat: "owner", text: waiting },
    inFlight: { chat: "topic", text: inFlight },
    skills: {
      bot: ["packing-list"],
      chat: { chat: "group", names: ["house-tone"], alwaysText: "UPGRADE-TONE-BODY" },
    },
    usage: usage.map(({ chatId, turns, inputTokens }) => ({ chatId, turns, inputTokens })),
    access: { chats: access.chats.map((chat) => chat.chatId), admins: access.admins.map((admin) => admin.userId) },
  };
}

/** One turn at a time: each waits for its answer in the chat before the next message is sent. */
function turnsOf(client: BotClient) {
  const delivered = (chat: FixtureChat, text: string, from = 0): Promise<RecordedRequest> =>
    client.request(`“${text}” in chat ${chat.chatId}`, deliveredTo(chat, text), { from });
  return {
    delivered,
    /** A message the fake model answers by default (`echo: <the message>`). */
    async plain(chat: FixtureChat, text: string, options: { photo?: string } = {}): Promise<void> {
      const from = client.mark();
      await client.say(chat, text, options);
      await delivered(chat, "echo:", from);
    },
    /** A message the model answers with tool calls, then with `answer`. */
    async withTools(
      chat: FixtureChat,
      text: string,
      calls: { name: string; arguments: unknown }[],
      answer: string,
    ): Promise<void> {
      const when = [markerOf(text)];
      await client.script("openai", [
        { when, body: openaiCompletion(null, { toolCalls: calls }) },
        { when, body: openaiCompletion(answer) },
      ]);
      const from = client.mark();
      await client.say(chat, text);
      await delivered(chat, answer, from);
    },
    /** A message to an Anthropic chat, answered with `answer`. */
    async anthropic(chat: FixtureChat, text: string, answer: string): Promise<void> {
      await client.script("anthropic", [{ when: [markerOf(text)], body: anthropicMessage(answer) }]);
      const from = client.mark();
      await client.say(chat, text);
      await delivered(chat, answer, from);
    },
  };
}

/** The “(UPGRADE-…)” marker a scripted message carries, which its model requests show whatever else is added. */
function markerOf(text: string): string {
  const marker = /\(UPGRADE-[A-Z0-9-]+\)/.exec(text)?.[0];
  if (!marker) throw new Error(`no marker in “${text}”`);
  return marker;
}
