import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { handedOverSlot } from "../../src/turn/turn-slots.ts";
import type { RecordedRequest } from "../fakes/server.ts";
import {
  fakes,
  openaiText,
  PRIVATE_CHAT,
  post,
  sentText,
  session,
  settled,
  storedHistory,
  textUpdate,
} from "./helpers.ts";

/** How long the fake Telegram holds the first answer's sendMessage before it answers. */
const SLOW_MS = 4_000;

const BLOCKED = { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" };

function slowSend(body: unknown, status = 200) {
  return { method: "sendMessage", status, body, delayMs: SLOW_MS };
}

function sentMessage(messageId: number, text: string) {
  return { message_id: messageId, date: 1, chat: { id: PRIVATE_CHAT, type: "private" }, text };
}

function assistantTexts(call: RecordedRequest | undefined): unknown[] {
  const messages = (call?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  return messages.filter((message) => message.role === "assistant").map((message) => message.content);
}

function userTexts(call: RecordedRequest | undefined): unknown[] {
  const messages = (call?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  return messages.filter((message) => message.role === "user").map((message) => message.content);
}

/** The chat's Telegram calls after the first answer's send, each marked `early` if it came before Telegram answered it. */
async function afterFirstAnswer(first: RecordedRequest): Promise<{ method: string; early: boolean }[]> {
  const telegram = await fakes.requests("telegram", { chatId: PRIVATE_CHAT });
  const index = telegram.findIndex((request) => request.at === first.at && request.method === first.method);
  return telegram
    .slice(index + 1)
    .map((request) => ({ method: request.method, early: request.at < first.at + SLOW_MS }));
}

async function inbox(): Promise<{ status: string; error: string | null }[]> {
  return runInDurableObject(session(PRIVATE_CHAT), (_instance, state) =>
    state.storage.sql
      .exec<{ status: string; error: string | null }>("SELECT status, error FROM inbox ORDER BY id")
      .toArray(),
  );
}

/**
 * "one" is answered while Telegram is slow to take the answer; "two" is sent once that answer's sendMessage is on its
 * way. Returns the first answer's send and the two model calls.
 */
async function secondWhileFirstIsSent(): Promise<{ first: RecordedRequest; calls: RecordedRequest[] }> {
  await fakes.script("openai", openaiText("First answer."), openaiText("Second answer."));
  await post(textUpdate("one"));
  const [first] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
  await post(textUpdate("two"));
  const calls = await fakes.wait("openai", { count: 2 });
  await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 2 });
  await settled(PRIVATE_CHAT);
  return { first: first!, calls };
}

describe("the next turn while an answer is delivered", () => {
  it("calls its model before the answer's sendMessage returns, and shows nothing until it has", async () => {
    await fakes.script("telegram", slowSend({ ok: true, result: sentMessage(9001, "First answer.") }));
    const { first, calls } = await secondWhileFirstIsSent();

    // The second turn's model call went out while Telegram still held the first answer...
    expect(calls[1]!.at).toBeLessThan(first.at + SLOW_MS);
    // ...and it was given that answer: it was recorded before it was delivered.
    expect(assistantTexts(calls[1])).toEqual(["First answer."]);
    // Nothing of the second turn ("typing…", a draft, its answer) reached Telegram before the first answer was taken.
    const after = await afterFirstAnswer(first);
    expect(after.length).toBeGreaterThan(0);
    expect(after).not.toContainEqual(expect.objectContaining({ early: true }));
    const sends = await fakes.requests("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sends.map(sentText)).toEqual(["First answer.", "Second answer."]);
    expect(await inbox()).toEqual([
      { status: "done", error: null },
      { status: "done", error: null },
    ]);
  });

  it("starts over at once with a message that joins it while it waits to show its answer", async () => {
    await fakes.script("telegram", slowSend({ ok: true, result: sentMessage(9001, "First answer.") }));
    await fakes.script("openai", openaiText("First answer."), openaiText("never shown"), openaiText("Both answered."));
    await post(textUpdate("one"));
    const [first] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    await post(textUpdate("two"));
    await fakes.wait("openai", { count: 2 });
    await post(textUpdate("three"));
    const calls = await fakes.wait("openai", { count: 3 });
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 2 });
    await settled(PRIVATE_CHAT);

    // "three" joined the second turn while it waited for the first answer: its call was made again with both, then.
    expect(calls[2]!.at).toBeLessThan(first!.at + SLOW_MS);
    expect(userTexts(calls[2])).toEqual(["one", "two", "three"]);
    const sends = await fakes.requests("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sends.map(sentText)).toEqual(["First answer.", "Both answered."]);
    expect(await afterFirstAnswer(first!)).not.toContainEqual(expect.objectContaining({ early: true }));
    expect((await inbox()).map((row) => row.status)).toEqual(["done", "done", "done"]);
  });

  it("records a refused answer as before: history keeps it, its message's row says it was not delivered", async () => {
    await fakes.script("telegram", slowSend(BLOCKED, 403));
    const { first, calls } = await secondWhileFirstIsSent();

    expect(calls[1]!.at).toBeLessThan(first.at + SLOW_MS);
    const sends = await fakes.requests("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sends.map(sentText)).toEqual(["First answer.", "Second answer."]);
    expect(sends[1]!.at).toBeGreaterThanOrEqual(first.at + SLOW_MS);
    expect(await inbox()).toEqual([
      { status: "failed", error: "the answer could not be delivered to Telegram" },
      { status: "done", error: null },
    ]);
    expect((await storedHistory(PRIVATE_CHAT)).map(({ role, content }) => `${role}: ${content}`)).toEqual([
      "user: one",
      "assistant: First answer.",
      "user: two",
      "assistant: Second answer.",
    ]);
  });
});

describe("an answer handed over for delivery", () => {
  const note = () => runInDurableObject(session(PRIVATE_CHAT), (instance) => instance.stores.meta.get(handedOverSlot));

  it("is noted with its turn's record until it is delivered", async () => {
    await fakes.script("telegram", slowSend({ ok: true, result: sentMessage(9001, "First answer.") }));
    await fakes.script("openai", openaiText("First answer."));
    await post(textUpdate("one"));
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(await note()).toEqual({ markdown: "First answer." });
    await settled(PRIVATE_CHAT);
    expect(await note()).toBeUndefined();
  });

  it("is sent by the next drain when the object stopped before it was delivered, before anything newer", async () => {
    await fakes.script("openai", openaiText("Hello."));
    await post(textUpdate("hi"));
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    await settled(PRIVATE_CHAT);
    // As the object leaves it when it dies while an answer is sent.
    await runInDurableObject(session(PRIVATE_CHAT), (instance) => {
      instance.stores.meta.set(handedOverSlot, { markdown: "The answer **cut off**." });
    });
    await fakes.script("openai", openaiText("A new answer."));
    await post(textUpdate("still there?"));
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 3 });
    await settled(PRIVATE_CHAT);

    const sends = await fakes.requests("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sends.map(sentText)).toEqual(["Hello.", "The answer <b>cut off</b>.", "A new answer."]);
    expect(await note()).toBeUndefined();
  });
});
