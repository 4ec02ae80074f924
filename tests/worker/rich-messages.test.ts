import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { draftsRefusedSlot, richRefusedSlot } from "../../src/reply/reply-slots.ts";
import { openaiCompletion } from "../fakes/bodies.ts";
import type { RecordedRequest } from "../fakes/server.ts";
import {
  admin,
  eventually,
  fakes,
  GROUP_CHAT,
  generationStopped,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  sentText,
  session,
  settled,
  storedHistory,
  textUpdate,
  withRichMessages,
} from "./helpers.ts";

/**
 * Answers as rich messages (Bot API 10.1-10.3), end to end through the webhook: what needs a rich message goes as
 * one, private answers stream in rich drafts (a thinking block for the current step, Telegram's stop control), a
 * group's in one rich message edited in place; where Telegram refuses rich messages, the same answers arrive on the
 * HTML path, once each, and the chat remembers it. The fake Telegram checks every rich message against the limits.
 */
const TABLE = "Here are the results:\n\n| Fruit | Qty |\n|:--|--:|\n| Apple | 3 |\n| Pear | 12 |\n\nEnjoy.";
const LONG = Array.from({ length: 100 }, (_, index) => `Paragraph ${index}: ${"word ".repeat(19)}`).join("\n\n");
const SLOW = "Here is **the answer**, written slowly, one word at a time, so that a person watching sees it grow.";

const bodyOf = (request: RecordedRequest | undefined) => (request?.body ?? {}) as Record<string, unknown>;
const markdownOf = (request: RecordedRequest | undefined) =>
  String((bodyOf(request).rich_message as { markdown?: unknown } | undefined)?.markdown ?? "");
const telegram = (method: string, chatId = PRIVATE_CHAT) => fakes.requests("telegram", { method, chatId });
const richRefused = (chatId: number) =>
  runInDurableObject(session(chatId), (instance) => instance.stores.meta.get(richRefusedSlot));
const draftsRefused = (chatId: number) =>
  runInDurableObject(session(chatId), (instance) => instance.stores.meta.get(draftsRefusedSlot));
/** The chat as the fake Telegram holds it: its messages and its draft. */
const chat = (chatId = PRIVATE_CHAT) => fakes.chatMessages(chatId);
/** The fake Telegram's own refusals (not scripted ones). */
const refusals = async () =>
  (await fakes.requests("telegram"))
    .filter((request) => request.refusal && !request.scripted)
    .map((request) => `${request.method}: ${request.refusal} ${request.detail ?? ""}`);

describe("an answer that needs a rich message", () => {
  it("shows a table as a table: one rich message, in Telegram's Markdown", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.script("openai", { body: openaiCompletion(TABLE) });
    await postUpdate(textUpdate("compare the fruit"));
    const [sent] = await fakes.wait("telegram", { method: "sendRichMessage" });
    expect(markdownOf(sent)).toBe(TABLE);
    expect(await telegram("sendMessage")).toHaveLength(0);
    const { messages } = await chat();
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content.kind).toBe("rich");
    expect(await refusals()).toEqual([]);
  });

  it("sends a 10,000-character answer as one message", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.script("openai", { body: openaiCompletion(LONG) });
    await postUpdate(textUpdate("write a lot"));
    await fakes.wait("telegram", { method: "sendRichMessage" });
    await eventually(async () => (await storedHistory(PRIVATE_CHAT)).some((message) => message.role === "assistant"));
    await settled(PRIVATE_CHAT);
    expect(LONG.length).toBeGreaterThan(10_000);
    const sent = await telegram("sendRichMessage");
    expect(sent).toHaveLength(1);
    expect(markdownOf(sent[0])).toBe(LONG.trimEnd());
    expect(await telegram("sendMessage")).toHaveLength(0);
  });

  it("keeps a short plain answer on the HTML path (auto), and sends everything rich when always", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.script("openai", { body: openaiCompletion("Just **this**.") });
    await postUpdate(textUpdate("hi"));
    const [plain] = await fakes.wait("telegram", { method: "sendMessage" });
    expect(sentText(plain)).toBe("Just <b>this</b>.");

    await withRichMessages(PRIVATE_CHAT, { richMessages: "always" });
    await fakes.script("openai", { body: openaiCompletion("Just **that**.") });
    await postUpdate(textUpdate("again"));
    const [rich] = await fakes.wait("telegram", { method: "sendRichMessage" });
    expect(markdownOf(rich)).toBe("Just **that**.");
  });
});

describe("a private answer on the rich path", () => {
  it("shows the current step in a thinking block, then the final message replaces the draft: never two copies", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.script("openai", openaiToolCalls([{ name: "remember", arguments: { fact: "Ada likes green" } }]), {
      body: openaiCompletion(TABLE),
      stream: { pieces: 8, delayMs: 150 },
      delayMs: 800,
    });
    await postUpdate(textUpdate("remember green, then show a table"));
    await eventually(async () => (await storedHistory(PRIVATE_CHAT)).some((message) => message.role === "assistant"));
    await settled(PRIVATE_CHAT);
    const drafts = await telegram("sendRichMessageDraft");
    const thinking = drafts.find((draft) => markdownOf(draft).includes("<tg-thinking>"));
    expect(markdownOf(thinking)).toContain("remember");
    // Every draft offers the stop control, all under one draft id.
    expect(drafts.every((draft) => bodyOf(draft).can_stop === true)).toBe(true);
    expect(new Set(drafts.map((draft) => bodyOf(draft).draft_id)).size).toBe(1);
    // The table showed as a table while it streamed (a draft's last table row is a whole row).
    expect(drafts.some((draft) => /\| Apple \| 3 \|/.test(markdownOf(draft)))).toBe(true);
    // No status line: the thinking block did its job. One final message, after the last draft; no draft left.
    expect(await telegram("sendMessage")).toHaveLength(0);
    const [final, ...more] = await telegram("sendRichMessage");
    expect(more).toHaveLength(0);
    expect(final!.at).toBeGreaterThan(drafts.at(-1)!.at);
    expect(markdownOf(final)).toContain("| Apple | 3 |");
    // The steps it took, collapsed under the answer.
    expect(markdownOf(final)).toMatch(/<details><summary>🛠 1 step<\/summary>[\s\S]*`remember` Ada likes green — ✓/);
    const { messages, draft } = await chat();
    expect(messages).toHaveLength(1);
    expect(draft).toBeNull();
    // What is stored is the answer, not the list of steps.
    expect((await storedHistory(PRIVATE_CHAT)).at(-1)).toEqual({ role: "assistant", content: TABLE });
    expect(await refusals()).toEqual([]);
  });

  it("stops when the person presses the draft's stop control, with nothing stored as complete", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.script("openai", {
      body: openaiCompletion(`${SLOW} ${SLOW} ${SLOW}`),
      stream: { pieces: 40, delayMs: 250 },
    });
    await postUpdate(textUpdate("tell me everything"));
    const [draft] = await fakes.wait("telegram", { method: "sendRichMessageDraft" });
    // A press for another draft (an earlier turn's) changes nothing.
    await postUpdate(generationStopped(Number(bodyOf(draft).draft_id) + 1));
    await postUpdate(generationStopped(Number(bodyOf(draft).draft_id)));
    await eventually(async () => (await telegram("sendMessage")).map(sentText).includes("⏹ Stopped."), "the stop");
    expect(await storedHistory(PRIVATE_CHAT)).toEqual([{ role: "user", content: "tell me everything" }]);
    expect(await telegram("sendRichMessage")).toHaveLength(0);
  });

  it("keeps drafts when Telegram answers one with a 502: only a refusal turns them off", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.script("openai", { body: openaiCompletion(TABLE), stream: { pieces: 16, delayMs: 200 } });
    await postUpdate(textUpdate("slowly"));
    await fakes.wait("telegram", { method: "sendRichMessageDraft" });
    const outageEnds = Date.now() + 800;
    await fakes.telegram({ outage: { status: 502, until: outageEnds } });
    await eventually(async () => (await storedHistory(PRIVATE_CHAT)).some((message) => message.role === "assistant"));
    await settled(PRIVATE_CHAT);
    const drafts = await telegram("sendRichMessageDraft");
    expect(drafts.some((draft) => draft.refusal === "Bad Gateway")).toBe(true);
    expect(drafts.some((draft) => draft.at > outageEnds && draft.refusal === undefined)).toBe(true);
    expect(await telegram("sendMessageDraft")).toHaveLength(0);
    expect(await draftsRefused(PRIVATE_CHAT)).toBeUndefined();
    expect(await richRefused(PRIVATE_CHAT)).toBeUndefined();
    expect(await telegram("sendRichMessage")).toHaveLength(1);
  });

  it("keeps a rich answer whose send's fate is unknown (the connection dropped) for one more try, as rich, never as HTML too", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.script("telegram", { method: "sendRichMessage", destroy: true });
    await fakes.script("openai", { body: openaiCompletion(TABLE) });
    await postUpdate(textUpdate("a table, please"));
    await eventually(async () => (await storedHistory(PRIVATE_CHAT)).some((message) => message.role === "assistant"));
    await settled(PRIVATE_CHAT);
    expect(await telegram("sendRichMessage")).toHaveLength(1);
    expect(await telegram("sendMessage")).toHaveLength(0);
    expect(await richRefused(PRIVATE_CHAT)).toBeUndefined();
    const waiting = await runInDurableObject(session(PRIVATE_CHAT), (_i, state) =>
      state.storage.sql.exec<{ uncertain: number; payload: string }>("SELECT uncertain, payload FROM outbox").one(),
    );
    expect(waiting.uncertain).toBe(1);
    expect(JSON.parse(waiting.payload).steps).toEqual([{ kind: "send-rich", markdown: TABLE }]);
    // Its next try (the object's alarm) sends it again in the same form: at most one duplicate, never a lost answer.
    await runInDurableObject(session(PRIVATE_CHAT), (_i, state) => {
      state.storage.sql.exec("UPDATE outbox SET next_try_at = 0");
    });
    await runDurableObjectAlarm(session(PRIVATE_CHAT));
    expect(await telegram("sendRichMessage")).toHaveLength(2);
    expect(await telegram("sendMessage")).toHaveLength(0);
    expect((await chat()).messages.map((message) => message.content.kind)).toEqual(["rich"]);
  });
});

describe("a group's answer on the rich path", () => {
  it("is one rich message edited in place, the step and the Stop button folded in, ending as the answer", async () => {
    await withRichMessages(GROUP_CHAT);
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "remember", arguments: { fact: "the group likes tables" } }]),
      { body: openaiCompletion(TABLE), stream: { pieces: 10, delayMs: 300 }, delayMs: 3_500 },
    );
    await postUpdate(textUpdate("@testbot remember, then a table", { chatId: GROUP_CHAT }));
    await eventually(async () => (await storedHistory(GROUP_CHAT)).some((message) => message.role === "assistant"));
    await settled(GROUP_CHAT);
    const sent = await telegram("sendRichMessage", GROUP_CHAT);
    expect(sent).toHaveLength(1);
    expect(markdownOf(sent[0])).toContain("remember");
    const id = (sent[0]!.result as { message_id: number }).message_id;
    const edits = await telegram("editMessageText", GROUP_CHAT);
    expect(edits.every((edit) => bodyOf(edit).message_id === id)).toBe(true);
    // The Stop button came under the same message; the last edit is the answer, without it and without the step.
    expect(edits.some((edit) => JSON.stringify(bodyOf(edit).reply_markup ?? {}).includes("stop:"))).toBe(true);
    const last = edits.at(-1)!;
    expect(markdownOf(last)).toBe(TABLE);
    expect(bodyOf(last).reply_markup).toEqual({ inline_keyboard: [] });
    expect(await telegram("sendMessage", GROUP_CHAT)).toHaveLength(0);
    const { messages } = await chat(GROUP_CHAT);
    expect(messages).toHaveLength(1);
    expect(await refusals()).toEqual([]);
  });

  it("does not edit the message again when it already shows the whole answer (Telegram refuses an edit that changes nothing)", async () => {
    // No Stop button within the turn, however slow the machine: its edit would be one more (it came after the 3 s
    // default when a loaded machine took that long to the stream's end).
    const stopLater = await admin("/settings", {
      method: "PATCH",
      body: JSON.stringify({ STOP_BUTTON_AFTER_SECONDS: 60 }),
    });
    expect(stopLater.status).toBe(200);
    await withRichMessages(GROUP_CHAT);
    // The whole table in one piece, then the end of the stream a moment later.
    await fakes.script("openai", { body: openaiCompletion(TABLE), stream: { pieces: 1, delayMs: 700 } });
    await postUpdate(textUpdate("@testbot a table, at once", { chatId: GROUP_CHAT }));
    await eventually(async () => (await storedHistory(GROUP_CHAT)).some((message) => message.role === "assistant"));
    await settled(GROUP_CHAT);
    const [sent] = await telegram("sendRichMessage", GROUP_CHAT);
    expect(markdownOf(sent)).toBe(TABLE);
    expect(await telegram("editMessageText", GROUP_CHAT)).toEqual([]);
    expect(await refusals()).toEqual([]);
  });
});

describe("where Telegram refuses rich messages", () => {
  it("delivers the same answers on the HTML path, once each, and the chat remembers it", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.telegram({ richMessages: false });
    await fakes.script("openai", { body: openaiCompletion(TABLE) });
    await postUpdate(textUpdate("compare the fruit"));
    const [html] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sentText(html)).toContain("<pre>Fruit | Qty");
    expect(await telegram("sendRichMessage")).toHaveLength(1);
    const remembered = await richRefused(PRIVATE_CHAT);
    expect(remembered?.until).toBeGreaterThan(Date.now() + 60 * 60 * 1000);

    // The next answers do not try rich messages or rich drafts at all: plain drafts, then HTML, once each.
    await fakes.script("openai", { body: openaiCompletion(LONG), stream: { pieces: 8, delayMs: 150 } });
    await postUpdate(textUpdate("write a lot"));
    await eventually(async () => (await telegram("sendMessage")).length >= 4, "the long answer");
    expect(await telegram("sendRichMessage")).toHaveLength(1);
    expect(await telegram("sendRichMessageDraft")).toHaveLength(0);
    expect(await telegram("sendMessageDraft")).not.toHaveLength(0);
    const texts = (await chat()).messages.map((message) => message.content.text ?? "");
    for (const index of [0, 50, 99]) expect(texts.join("\n").split(`Paragraph ${index}:`)).toHaveLength(2);
  });

  it("falls back from rich drafts to plain ones mid-answer, and still delivers once", async () => {
    await withRichMessages(PRIVATE_CHAT);
    await fakes.telegram({ richMessages: false });
    await fakes.script("openai", { body: openaiCompletion(TABLE), stream: { pieces: 12, delayMs: 150 } });
    await postUpdate(textUpdate("slowly"));
    await eventually(async () => (await storedHistory(PRIVATE_CHAT)).some((message) => message.role === "assistant"));
    await settled(PRIVATE_CHAT);
    expect(await telegram("sendRichMessageDraft")).toHaveLength(1);
    expect(await telegram("sendMessageDraft")).not.toHaveLength(0);
    expect(await telegram("sendRichMessage")).toHaveLength(0);
    const sent = await telegram("sendMessage");
    expect(sent.map(sentText).filter((text) => text.includes("Fruit"))).toHaveLength(1);
  });

  it("falls back in a group to the plain edited message and its status line", async () => {
    await withRichMessages(GROUP_CHAT);
    await fakes.telegram({ richMessages: false });
    await fakes.script("openai", { body: openaiCompletion(SLOW), stream: { pieces: 12, delayMs: 250 } });
    await postUpdate(textUpdate("@testbot slowly", { chatId: GROUP_CHAT }));
    await eventually(async () => (await storedHistory(GROUP_CHAT)).some((message) => message.role === "assistant"));
    await settled(GROUP_CHAT);
    expect(await telegram("sendRichMessage", GROUP_CHAT)).toHaveLength(1);
    const answers = (await chat(GROUP_CHAT)).messages.filter((message) => message.content.text?.includes("the answer"));
    expect(answers).toHaveLength(1);
    expect(await richRefused(GROUP_CHAT)).toBeDefined();
  });
});
