import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { draftsRefusedSlot } from "../../src/reply/reply-slots.ts";
import { anthropicMessage, openaiCompletion } from "../fakes/bodies.ts";
import type { RecordedRequest } from "../fakes/server.ts";
import {
  admin,
  buttonPress,
  eventually,
  fakes,
  GROUP_CHAT,
  meanGapMs,
  PRIVATE_CHAT,
  postUpdate,
  sentText,
  session,
  settled,
  storedHistory,
  textUpdate,
} from "./helpers.ts";

const ANSWER =
  "Here is **the answer**, written slowly, one word at a time, so that a person watching sees it grow on screen.";

/** The scripted answer, streamed in `pieces` events `delayMs` apart. */
const streamed = (text: string, pieces: number, delayMs: number) => ({
  body: openaiCompletion(text),
  stream: { pieces, delayMs },
});

const bodyOf = (request: RecordedRequest | undefined) => (request?.body ?? {}) as Record<string, unknown>;
/** The id Telegram gave a sent message. */
const sentId = (request: RecordedRequest | undefined) =>
  (request?.result as { message_id?: number } | undefined)?.message_id;
/** The answer's own messages, not the status line (which carries the Stop button and is deleted at the end). */
const answerMessages = (requests: RecordedRequest[]) =>
  requests.filter((request) => bodyOf(request).reply_markup === undefined);
const telegram = (method: string, chatId?: number) =>
  fakes.requests("telegram", { method, ...(chatId === undefined ? {} : { chatId }) });
const formattedEdits = async (chatId?: number) =>
  (await telegram("editMessageText", chatId)).filter((edit) => bodyOf(edit).parse_mode === "HTML");

describe("a private chat's answer", () => {
  it("grows in a draft, paced, and ends as exactly one formatted message", async () => {
    // 30 pieces 150 ms apart: about 4.5 s, past the Stop button's 3 s.
    await fakes.script("openai", streamed(ANSWER, 30, 150));
    await postUpdate(textUpdate("explain slowly"));
    await eventually(async () => answerMessages(await telegram("sendMessage")).length === 1, "the answer");
    const [final] = answerMessages(await telegram("sendMessage"));
    const drafts = await telegram("sendMessageDraft");
    expect(drafts.length).toBeGreaterThanOrEqual(3);
    // Paced at STREAM_DRAFT_INTERVAL_MS (400 ms) on average, as received (see meanGapMs); unpaced, they would come
    // with the pieces, 150 ms apart.
    expect(meanGapMs(drafts)).toBeGreaterThanOrEqual(360);
    // Plain text while streaming, each draft longer than the one before, all under one draft id.
    const texts = drafts.map((draft) => String(bodyOf(draft).text));
    for (const [index, text] of texts.entries()) {
      expect(bodyOf(drafts[index]).parse_mode).toBeUndefined();
      if (index > 0) expect(text.startsWith(texts[index - 1]!)).toBe(true);
    }
    expect(new Set(drafts.map((draft) => bodyOf(draft).draft_id)).size).toBe(1);
    expect(final!.at).toBeGreaterThan(drafts.at(-1)!.at);
    expect(bodyOf(final).parse_mode).toBe("HTML");
    expect(sentText(final)).toContain("<b>the answer</b>");
    expect((await storedHistory(PRIVATE_CHAT)).at(-1)).toEqual({ role: "assistant", content: ANSWER });
    // The status line (with its Stop button) was there while the answer ran, and went once it was delivered.
    await eventually(async () => (await telegram("deleteMessage")).length === 1, "the status line to go");
    expect(answerMessages(await telegram("sendMessage"))).toHaveLength(1);
  });

  it("falls back to one edited message when Telegram refuses drafts, and remembers that for the chat", async () => {
    await fakes.script("telegram", {
      method: "sendMessageDraft",
      status: 400,
      body: { ok: false, error_code: 400, description: "Bad Request: method is not available" },
    });
    await fakes.script("openai", streamed(ANSWER, 12, 300));
    await postUpdate(textUpdate("explain slowly"));
    await eventually(async () => (await formattedEdits()).length === 1);
    const [answer, ...more] = answerMessages(await telegram("sendMessage"));
    expect(more).toHaveLength(0);
    const edits = (await telegram("editMessageText")).filter((edit) => bodyOf(edit).message_id === sentId(answer));
    // Streamed as plain text with a cursor, then the formatted answer in the same message.
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(sentText(edits[0])).toContain("▍");
    expect(bodyOf(edits.at(-1)).parse_mode).toBe("HTML");
    expect(
      await runInDurableObject(session(PRIVATE_CHAT), (instance) => instance.stores.meta.get(draftsRefusedSlot)),
    ).toBe(true);

    // The next answer does not try a draft at all.
    await fakes.script("openai", streamed("Second answer.", 2, 50));
    await postUpdate(textUpdate("again"));
    await eventually(async () => answerMessages(await telegram("sendMessage")).length === 2);
    expect(await telegram("sendMessageDraft")).toHaveLength(1);
  });

  it("is not stored when the model's stream dies halfway, and the person is told", async () => {
    await fakes.script("openai", {
      body: openaiCompletion(ANSWER),
      stream: { pieces: 12, delayMs: 100, breakAfter: 6 },
    });
    await postUpdate(textUpdate("explain"));
    const [told] = await fakes.wait("telegram", { method: "sendMessage" });
    expect(sentText(told)).toContain("could not be reached");
    expect(await telegram("sendMessageDraft")).not.toHaveLength(0);
    expect(await storedHistory(PRIVATE_CHAT)).toEqual([{ role: "user", content: "explain" }]);
  });

  it("acknowledges a message with 👀 when its answer keeps the person waiting, and not when it is quick", async () => {
    await fakes.script("openai", { body: openaiCompletion("Quick.") });
    await postUpdate(textUpdate("quick one"));
    await fakes.wait("telegram", { method: "sendMessage" });
    expect(await telegram("setMessageReaction")).toHaveLength(0);

    const slow = textUpdate("slow one");
    await fakes.script("openai", { body: openaiCompletion("Slow."), delayMs: 2_000 });
    await postUpdate(slow);
    const [reaction] = await fakes.wait("telegram", { method: "setMessageReaction" });
    expect(bodyOf(reaction)).toMatchObject({
      chat_id: PRIVATE_CHAT,
      message_id: (slow.message as { message_id: number }).message_id,
      reaction: [{ type: "emoji", emoji: "👀" }],
    });
    await eventually(async () => answerMessages(await telegram("sendMessage")).length === 2);
  });
});

describe("an agent's answer", () => {
  it("streams the runner's partial messages into a private chat's draft", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify({ provider: "claude-agent" }) });
    const line = (event: unknown, delayMs = 0) => ({ line: JSON.stringify(event), delayMs });
    const words = ["Listing ", "the ", "files: ", "a.txt, ", "b.txt ", "and ", "c.txt."];
    await fakes.script("runner", {
      lines: [
        line({ type: "session_init", sessionId: "s1" }),
        ...words.map((word) => line({ type: "text_delta", text: word }, 250)),
        line({ type: "result", text: words.join("") }),
      ],
    });
    await postUpdate(textUpdate("list the files"));
    await eventually(async () => answerMessages(await telegram("sendMessage")).length === 1);
    const drafts = (await telegram("sendMessageDraft")).map((draft) => String(bodyOf(draft).text));
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    expect(drafts[0]!.length).toBeLessThan(drafts.at(-1)!.length);
    expect(drafts.at(-1)).toContain("a.txt");
    expect(sentText(answerMessages(await telegram("sendMessage"))[0])).toBe(words.join(""));
  });
});

describe("a group's answer", () => {
  const group = { chatId: GROUP_CHAT };

  it("is one message edited in place, paced, whose last edit is the formatted answer", async () => {
    await fakes.script("openai", streamed(ANSWER, 16, 250));
    const update = textUpdate("@testbot explain slowly", group);
    await postUpdate(update);
    await eventually(async () => (await formattedEdits(GROUP_CHAT)).length === 1);
    const sent = answerMessages(await telegram("sendMessage", GROUP_CHAT));
    expect(sent).toHaveLength(1);
    expect(bodyOf(sent[0]).reply_parameters).toMatchObject({
      message_id: (update.message as { message_id: number }).message_id,
    });
    const edits = (await telegram("editMessageText", GROUP_CHAT)).filter(
      (edit) => bodyOf(edit).message_id === sentId(sent[0]),
    );
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(sentText(edits[0])).toContain("▍");
    expect(sentText(edits.at(-1))).toContain("<b>the answer</b>");
    // STREAM_EDIT_INTERVAL_MS is 1 s in the tests (3 s deployed): the streamed calls to the group come that far apart
    // on average, as received (see meanGapMs); unpaced, they would come with the pieces, 250 ms apart.
    const paced = (await fakes.requests("telegram", { chatId: GROUP_CHAT })).filter(
      (request) =>
        (request.method === "sendMessage" || request.method === "editMessageText") &&
        bodyOf(request).parse_mode === undefined,
    );
    expect(paced.length).toBeGreaterThanOrEqual(2);
    expect(meanGapMs(paced)).toBeGreaterThanOrEqual(850);
    expect(await telegram("sendMessageDraft")).toHaveLength(0);
  });

  it("honours retry_after when Telegram answers an edit with 429, and still ends formatted", async () => {
    await fakes.script("telegram", {
      method: "editMessageText",
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: "Too Many Requests: retry after 2",
        parameters: { retry_after: 2 },
      },
    });
    await fakes.script("openai", streamed(ANSWER, 16, 250));
    await postUpdate(textUpdate("@testbot explain slowly", group));
    await eventually(async () => (await formattedEdits(GROUP_CHAT)).length === 1);
    const [refused] = await telegram("editMessageText", GROUP_CHAT);
    // Nothing went to the group for 2 s after the 429 (typing aside).
    const after = (await fakes.requests("telegram", { chatId: GROUP_CHAT })).filter(
      (request) => request.at > refused!.at && request.method !== "sendChatAction",
    );
    expect(after.length).toBeGreaterThan(0);
    expect(after[0]!.at - refused!.at).toBeGreaterThanOrEqual(1_950);
    expect(answerMessages(await telegram("sendMessage", GROUP_CHAT))).toHaveLength(1);
  });

  it("continues an answer longer than one message in new messages, never sending a piece twice", async () => {
    const long = Array.from({ length: 120 }, (_, index) => `Line ${index}: ${"words ".repeat(12)}`).join("\n");
    // About 8 s of streaming at one paced call a second: the text passes one message's length well before the end.
    await fakes.script("openai", streamed(long, 40, 200));
    await postUpdate(textUpdate("@testbot write a lot", group));
    await eventually(
      async () => (await storedHistory(GROUP_CHAT)).some((message) => message.role === "assistant"),
      "the turn",
    );
    // Recorded, then delivered: the drain ends once the answer has its final form.
    await settled(GROUP_CHAT);
    const sent = answerMessages(await telegram("sendMessage", GROUP_CHAT));
    const streamedIds = sent.filter((message) => bodyOf(message).parse_mode === undefined).map(sentId);
    const final = await formattedEdits(GROUP_CHAT);
    const finalSent = sent.filter((message) => bodyOf(message).parse_mode === "HTML");
    // Two messages were streamed; both became final pieces (edited, not sent again); any piece left was sent new.
    expect(streamedIds.length).toBeGreaterThanOrEqual(2);
    expect(final.map((edit) => bodyOf(edit).message_id)).toEqual(streamedIds);
    const shown = [...final, ...finalSent].map(sentText).join("\n");
    for (const index of [0, 60, 119]) expect(shown.split(`Line ${index}:`)).toHaveLength(2);
  });
});

describe("the Stop button", () => {
  const group = { chatId: GROUP_CHAT };

  it("appears after a few seconds, stops the turn for the person who asked, and for nobody else", async () => {
    await admin(`/chats/${GROUP_CHAT}/config`, { method: "PUT", body: JSON.stringify({ provider: "anthropic" }) });
    await fakes.script("anthropic", { body: anthropicMessage(ANSWER), stream: { pieces: 40, delayMs: 300 } });
    // User 1002 (not an admin) asks in the group.
    await postUpdate(textUpdate("@testbot tell me everything", { ...group, fromId: 1002 }));
    await eventually(async () =>
      (await fakes.requests("telegram", { chatId: GROUP_CHAT })).some((request) => bodyOf(request).reply_markup),
    );
    const status = (await fakes.requests("telegram", { chatId: GROUP_CHAT })).find(
      (request) => bodyOf(request).reply_markup,
    )!;
    const data = /"callback_data":"(stop:[^"]+)"/.exec(JSON.stringify(bodyOf(status).reply_markup))?.[1];
    expect(data).toBeDefined();

    // Someone else in the group cannot stop it.
    await postUpdate(buttonPress(data!, { chatId: GROUP_CHAT, fromId: 5005, messageId: 1 }));
    const [refused] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect(bodyOf(refused).text).toContain("Only the person who asked");

    await postUpdate(buttonPress(data!, { chatId: GROUP_CHAT, fromId: 1002, messageId: 1 }));
    const answers = await fakes.wait("telegram", { method: "answerCallbackQuery", count: 2 });
    expect(bodyOf(answers[1]).text).toBe("Stopping…");
    await eventually(async () => (await telegram("sendMessage", GROUP_CHAT)).map(sentText).includes("⏹ Stopped."));
    // Nothing of the stopped answer is stored as if it were complete.
    expect((await storedHistory(GROUP_CHAT)).filter((message) => message.role === "assistant")).toEqual([]);
    expect(await fakes.requests("anthropic")).toHaveLength(1);
  });
});
