import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  draftsRefusedSlot,
  outboxDroppedSlot,
  richRefusedSlot,
  telegramRefusedSlot,
} from "../../src/reply/reply-slots.ts";
import { openaiCompletion } from "../fakes/bodies.ts";
import { ConsoleBrowser } from "./console-browser.ts";
import {
  admin,
  eventually,
  fakes,
  GROUP_CHAT,
  openaiText,
  PRIVATE_CHAT,
  postUpdate,
  session,
  settled,
  textUpdate,
  withRichMessages,
} from "./helpers.ts";

/**
 * The outbox, end to end: with Telegram unavailable (the fake answers 502), answers, notices and task results are
 * kept in the chat object and retried on its alarm, in order, once each, until Telegram takes them; a refusal ends
 * them at once and is recorded; an outage is never taken for a refusal of drafts or rich messages. Time is moved by
 * making the stored next tries due and running the object's alarm, not by waiting.
 */
const TABLE = "Here are the results:\n\n| Fruit | Qty |\n|:--|--:|\n| Apple | 3 |\n| Pear | 12 |\n\nEnjoy.";
const BLOCKED = { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" };

type OutboxRow = {
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  next_try_at: number;
  created_at: number;
  uncertain: number;
};

const outbox = (chatId = PRIVATE_CHAT) =>
  runInDurableObject(session(chatId), (_instance, state) =>
    state.storage.sql.exec<OutboxRow>("SELECT * FROM outbox ORDER BY id").toArray(),
  );
const answers = (chatId = PRIVATE_CHAT) =>
  runInDurableObject(session(chatId), (_instance, state) =>
    state.storage.sql
      .exec<{ message: string }>("SELECT message FROM history WHERE role = 'assistant' ORDER BY id")
      .toArray()
      .map((row) => (JSON.parse(row.message) as { content: string }).content),
  );
const meta = (chatId = PRIVATE_CHAT) =>
  runInDurableObject(session(chatId), ({ stores }) => ({
    telegramRefused: stores.meta.get(telegramRefusedSlot),
    outboxDropped: stores.meta.get(outboxDroppedSlot),
    richRefused: stores.meta.get(richRefusedSlot),
    draftsRefused: stores.meta.get(draftsRefusedSlot),
  }));
/** What the chat shows, as the fake Telegram holds it: each message's text, in order. */
const shown = async (chatId = PRIVATE_CHAT) =>
  (await fakes.chatMessages(chatId)).messages.map((message) => message.text ?? message.content.rich?.text ?? "");
/** Telegram calls of a method that went through (not refused, not dropped). */
const accepted = async (method: string, chatId = PRIVATE_CHAT) =>
  (await fakes.requests("telegram", { method, chatId })).filter((request) => request.refusal === undefined);

/** Time passes for the outbox: its messages become `olderByMs` older and their next try (and any hold) is due. */
async function timePasses(chatId = PRIVATE_CHAT, olderByMs = 0): Promise<void> {
  await runInDurableObject(session(chatId), (_instance, state) => {
    state.storage.sql.exec(
      "UPDATE outbox SET next_try_at = 0, hold_until = NULL, created_at = created_at - ?",
      olderByMs,
    );
  });
}

/** Runs the chat object's alarm now (the drain flushes the outbox first); fails if none was set. */
async function alarmNow(chatId = PRIVATE_CHAT): Promise<void> {
  expect(await runDurableObjectAlarm(session(chatId))).toBe(true);
}

/**
 * A message answered while Telegram is down: its turn ends with the answer recorded, and its drain once the answer's
 * delivery (handed over as the turn ended) has tried Telegram and queued it.
 */
async function askDuringOutage(text: string, answer: string, chatId = PRIVATE_CHAT): Promise<void> {
  const before = (await answers(chatId)).length;
  await fakes.script("openai", openaiText(answer));
  await postUpdate(textUpdate(text, { chatId }));
  await eventually(async () => (await answers(chatId)).length > before, `the turn answering "${text}"`);
  await settled(chatId);
}

describe("when Telegram is down", () => {
  it("502 for five minutes: every answer of that time arrives once, in order, when it returns, and no turn runs twice", async () => {
    await fakes.telegram({ outage: { status: 502 } });
    await askDuringOutage("question one", "Answer one");
    const firstQueuedAt = Date.now();
    await askDuringOutage("question two", "Answer two");
    await askDuringOutage("question three", "Answer three");

    expect(await shown()).toEqual([]);
    expect((await outbox()).map((row) => row.kind)).toEqual(["answer", "answer", "answer"]);
    // Answered, not failed: the inbox rows are done and the answers are in history, each made once.
    expect(await answers()).toEqual(["Answer one", "Answer two", "Answer three"]);
    expect(await fakes.requests("openai")).toHaveLength(3);
    const inbox = await runInDurableObject(session(PRIVATE_CHAT), (_instance, state) =>
      state.storage.sql.exec<{ status: string; error: string | null }>("SELECT status, error FROM inbox").toArray(),
    );
    expect(inbox).toEqual(Array.from({ length: 3 }, () => ({ status: "done", error: null })));
    // Behind a waiting answer nothing streams: no draft after the first answer was queued.
    const drafts = await fakes.requests("telegram", { method: "sendMessageDraft" });
    expect(drafts.filter((draft) => draft.at > firstQueuedAt)).toEqual([]);
    expect(await meta()).toMatchObject({
      draftsRefused: undefined,
      richRefused: undefined,
      telegramRefused: undefined,
    });

    // The console and /health see what waits.
    const state = await (await admin(`/chats/${PRIVATE_CHAT}/outbox`)).json<{ waiting: number; nextTryAt: number }>();
    expect(state).toMatchObject({ chatId: PRIVATE_CHAT, waiting: 3, nextTryAt: expect.any(Number) });
    const health = await (await exports.default.fetch("http://bot.test/health")).json<Record<string, unknown>>();
    expect(health.waitingForTelegram).toMatchObject({ chats: 1, messages: expect.any(Number) });
    const browser = new ConsoleBrowser();
    await browser.signIn();
    expect(await (await browser.get(`/console/chats/${PRIVATE_CHAT}`)).text()).toContain('data-outbox-waiting="3"');
    expect(await (await browser.get("/console/health")).text()).toContain("Waiting for Telegram");

    // Five minutes of tries, each later than the one before; the first answer holds the others behind it.
    const waits: number[] = [];
    for (let minute = 0; minute < 5; minute++) {
      await timePasses(PRIVATE_CHAT, 60_000);
      await alarmNow();
      const [head] = await outbox();
      waits.push(head!.next_try_at - Date.now());
    }
    expect(await shown()).toEqual([]);
    expect((await outbox())[0]!.attempts).toBeGreaterThanOrEqual(6);
    expect(waits.at(-1)!).toBeGreaterThan(waits[0]!);

    await fakes.telegram({ outage: null });
    await timePasses();
    await alarmNow();
    expect(await shown()).toEqual(["Answer one", "Answer two", "Answer three"]);
    expect(await accepted("sendMessage")).toHaveLength(3);
    expect(await outbox()).toEqual([]);
    expect(await fakes.requests("openai")).toHaveLength(3);
    expect(await (await admin(`/chats/${PRIVATE_CHAT}/outbox`)).json()).toEqual({ chatId: PRIVATE_CHAT, waiting: 0 });
    const after = await (await exports.default.fetch("http://bot.test/health")).json<Record<string, unknown>>();
    expect(after.waitingForTelegram).toBeUndefined();
  });

  it("a newer answer after Telegram is back takes the waiting one along first", async () => {
    await fakes.telegram({ outage: { status: 503 } });
    await askDuringOutage("first", "The first answer");
    await fakes.telegram({ outage: null });
    // No alarm ran: the next message's answer finds the outbox waiting, tries it, and goes after it.
    await askDuringOutage("second", "The second answer");
    await eventually(async () => (await shown()).length === 2, "both answers");
    expect(await shown()).toEqual(["The first answer", "The second answer"]);
    expect(await outbox()).toEqual([]);
  });

  it("a task's result made during the outage arrives when Telegram returns", async () => {
    await fakes.telegram({ outage: { status: 502 } });
    const now = Date.now();
    const task = await env.DB.prepare(
      "INSERT INTO tasks (chat_id, created_by_chat, created_by_user, prompt, run_at, cron, timezone, status, next_run_at, created_at, updated_at) VALUES (?, ?, ?, 'Water the plants', ?, NULL, 'UTC', 'active', ?, ?, ?) RETURNING id",
    )
      .bind(PRIVATE_CHAT, PRIVATE_CHAT, PRIVATE_CHAT, now - 1000, now - 1000, now, now)
      .first<{ id: number }>();
    await fakes.script("openai", openaiText("🌱 Time to water the plants."));
    await session(PRIVATE_CHAT).tasksChanged(PRIVATE_CHAT);
    await eventually(async () => (await outbox()).length === 1, "the task's result in the outbox");
    const run = () => env.DB.prepare("SELECT outcome FROM task_runs WHERE task_id = ?").bind(task!.id).first();
    await expect.poll(run).toEqual({ outcome: "ok" });

    await fakes.telegram({ outage: null });
    await timePasses();
    await alarmNow();
    expect(await shown()).toEqual(["🌱 Time to water the plants."]);
    expect(await fakes.requests("openai")).toHaveLength(1);
  });

  it("never takes the outage for a refusal of drafts or rich messages: a rich answer waits as one and arrives as one", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.telegram({ outage: { status: 502 } });
    await fakes.script("openai", { body: openaiCompletion(TABLE), stream: { pieces: 8, delayMs: 100 } });
    await postUpdate(textUpdate("compare the fruit"));
    await eventually(async () => (await answers()).length === 1, "the answer");
    await settled(PRIVATE_CHAT);
    expect(await fakes.requests("telegram", { method: "sendRichMessageDraft" })).not.toHaveLength(0);
    expect(await meta()).toMatchObject({
      richRefused: undefined,
      draftsRefused: undefined,
      telegramRefused: undefined,
    });
    const [row] = await outbox();
    expect(JSON.parse(row!.payload).steps).toEqual([{ kind: "send-rich", markdown: TABLE }]);

    await fakes.telegram({ outage: null });
    await timePasses();
    await alarmNow();
    const [rich] = await accepted("sendRichMessage");
    expect((rich!.body as { rich_message?: { markdown?: string } }).rich_message?.markdown).toBe(TABLE);
    expect(await accepted("sendMessage")).toEqual([]);
    expect(await meta()).toMatchObject({ richRefused: undefined, draftsRefused: undefined });
  });

  it("a dropped connection is no refusal either: drafts stay on, the answer waits (once more at most) and arrives", async () => {
    await fakes.telegram({ outage: { drop: true } });
    await fakes.script("openai", { body: openaiCompletion("Still here."), stream: { pieces: 6, delayMs: 150 } });
    await postUpdate(textUpdate("hello?"));
    await eventually(async () => (await answers()).length === 1, "the answer");
    await settled(PRIVATE_CHAT);
    expect(await fakes.requests("telegram", { method: "sendMessageDraft" })).not.toHaveLength(0);
    expect(await meta()).toMatchObject({
      draftsRefused: undefined,
      richRefused: undefined,
      telegramRefused: undefined,
    });
    expect(await outbox()).toMatchObject([{ uncertain: 1 }]);

    await fakes.telegram({ outage: null });
    await timePasses();
    await alarmNow();
    expect(await shown()).toEqual(["Still here."]);
  });

  it("gives a streamed group answer its final form when Telegram returns, in place: never a second copy", async () => {
    const long = Array.from({ length: 30 }, (_, index) => `Sentence ${index} of a long answer.`).join(" ");
    await fakes.script("openai", { body: openaiCompletion(long), stream: { pieces: 12, delayMs: 250 } });
    await postUpdate(textUpdate("@testbot tell me a long story", { chatId: GROUP_CHAT }));
    const [streamed] = await fakes.wait("telegram", { method: "sendMessage", chatId: GROUP_CHAT });
    await fakes.telegram({ outage: { status: 502 } });
    await eventually(async () => (await answers(GROUP_CHAT)).length === 1, "the group's answer");
    await settled(GROUP_CHAT);
    const [row] = await outbox(GROUP_CHAT);
    expect(JSON.parse(row!.payload).steps).toEqual([
      expect.objectContaining({ kind: "edit", messageId: (streamed!.result as { message_id: number }).message_id }),
    ]);

    await fakes.telegram({ outage: null });
    await timePasses(GROUP_CHAT);
    await alarmNow(GROUP_CHAT);
    expect(await shown(GROUP_CHAT)).toEqual([long]);
    expect(await outbox(GROUP_CHAT)).toEqual([]);
  });
});

describe("a refusal ends it", () => {
  it("a blocked bot: the waiting answers are dropped at once and the refusal recorded; later answers are not kept", async () => {
    await fakes.telegram({ outage: { status: 502 } });
    await askDuringOutage("one", "First");
    await askDuringOutage("two", "Second");
    await fakes.telegram({ outage: null });
    await fakes.script("telegram", { method: "sendMessage", status: 403, body: BLOCKED });
    await timePasses();
    await alarmNow();

    expect(await outbox()).toEqual([]);
    // One try, refused; the second answer is not tried at all.
    const refused = (await fakes.requests("telegram", { method: "sendMessage" })).filter((r) => r.scripted);
    expect(refused).toHaveLength(1);
    expect(await meta()).toMatchObject({
      telegramRefused: { at: expect.any(Number), description: "403 Forbidden: bot was blocked by the user" },
      outboxDropped: { count: 2, reason: "refused: 403 Forbidden: bot was blocked by the user" },
    });

    // A new answer Telegram refuses is not kept either: the turn is answered, its delivery failed.
    await fakes.script("telegram", { method: "sendMessage", status: 403, body: BLOCKED });
    await askDuringOutage("three", "Third");
    expect(await outbox()).toEqual([]);
    const inbox = await runInDurableObject(session(PRIVATE_CHAT), (_instance, state) =>
      state.storage.sql.exec<{ error: string | null }>("SELECT error FROM inbox ORDER BY id DESC LIMIT 1").one(),
    );
    expect(inbox.error).toContain("could not be delivered");
    expect(await shown()).toEqual([]);
  });

  it("an answer past OUTBOX_MAX_HOURS is given up without another try, and counted", async () => {
    await fakes.telegram({ outage: { status: 502 } });
    await askDuringOutage("hello?", "Too late");
    await fakes.telegram({ outage: null });
    const before = (await fakes.requests("telegram", { method: "sendMessage" })).length;
    await timePasses(PRIVATE_CHAT, 25 * 3_600_000);
    await alarmNow();
    expect(await outbox()).toEqual([]);
    expect(await fakes.requests("telegram", { method: "sendMessage" })).toHaveLength(before);
    expect(await shown()).toEqual([]);
    expect((await meta()).outboxDropped).toMatchObject({
      count: 1,
      reason: expect.stringContaining("did not take for 25 h"),
    });
  });
});

describe("a send whose fate is unknown", () => {
  it("is tried once more, never a third time (a timeout may show it twice, and never loses it)", async () => {
    await fakes.script("telegram", { method: "sendMessage", destroy: true }, { method: "sendMessage", destroy: true });
    await askDuringOutage("are you there?", "Yes");
    expect(await outbox()).toMatchObject([{ uncertain: 1, attempts: 1 }]);
    await timePasses();
    await alarmNow();
    expect(await outbox()).toMatchObject([{ uncertain: 2, attempts: 2 }]);
    await timePasses();
    await alarmNow();
    expect(await outbox()).toEqual([]);
    expect(await fakes.requests("telegram", { method: "sendMessage" })).toHaveLength(2);
  });
});

describe("/status", () => {
  it("tries what waits first, then says how many answers wait and when the next try is", async () => {
    await fakes.telegram({ outage: { status: 502 } });
    await askDuringOutage("first", "Waiting answer");
    await fakes.telegram({ outage: null, rateLimit: { method: "sendMessage", retryAfter: 30 } });
    await postUpdate(textUpdate("/status"));
    // The answer waits (Telegram asked for 30 s); the status goes at once, ahead of it.
    await eventually(async () => (await shown()).length === 1, "the status");
    expect((await shown())[0]).toMatch(/⏳ 1 answer waiting for Telegram \(next try in 3\d s\)/);

    await timePasses();
    await alarmNow();
    expect((await shown()).at(-1)).toBe("Waiting answer");
  });
});
