import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  admin,
  fakes,
  OTHER_PRIVATE_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  post,
  say,
  sentText,
  session,
  settled,
  textUpdate,
} from "./helpers.ts";

interface OpenAiBody {
  messages: { role: string; content: unknown }[];
}

/** What search_history answered in the turn's last model call. */
async function toolResult(): Promise<string> {
  const body = (await fakes.requests("openai")).at(-1)!.body as OpenAiBody;
  return String(body.messages.findLast((message) => message.role === "tool")?.content);
}

/** Waits until the chat's object has answered everything in its inbox. */
async function drained(chatId: number): Promise<void> {
  for (;;) {
    await settled(chatId);
    const waiting = await runInDurableObject(session(chatId), (_instance, state) =>
      state.storage.sql
        .exec<{ count: number }>("SELECT count(*) AS count FROM inbox WHERE status IN ('pending', 'processing')")
        .one(),
    );
    if (waiting.count === 0) return;
    await scheduler.wait(50);
  }
}

/** Sends a message and waits for the answer that says `expected` (tool status lines are messages too). */
async function ask(text: string, expected: string, chatId = PRIVATE_CHAT): Promise<void> {
  await post(textUpdate(text, { chatId }));
  for (let waited = 0; waited < 10_000; waited += 20) {
    const sent = await fakes.requests("telegram", { method: "sendMessage", chatId });
    if (sent.some((request) => sentText(request).includes(expected))) return;
    await scheduler.wait(20);
  }
  throw new Error(`no answer saying "${expected}"`);
}

const storedCounts = (chatId: number) =>
  runInDurableObject(session(chatId), ({ stores }) => ({
    live: stores.history.count(),
    archived: stores.historySearch.archived(),
  }));

describe("finding anything said before", () => {
  it("after 2,000 messages, a new user's locker code is found in the first one, long out of the window", async () => {
    await post(textUpdate("Hi! Note for later: my locker code is 4711."));
    for (let index = 1; index < 2_000; index++) {
      await post(textUpdate(`message ${index}: nothing much to say about the weather ${index % 7}`));
    }
    await drained(PRIVATE_CHAT);
    // The default keeps 400 rows live; the rest, the first message included, is archived.
    const counts = await storedCounts(PRIVATE_CHAT);
    expect(counts.live).toBe(400);
    expect(counts.live + counts.archived).toBeGreaterThan(2_000);

    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "search_history", arguments: { query: "locker code" } }]),
      openaiText("You said your locker code was 4711."),
    );
    await ask("what did I say my locker code was?", "You said your locker code was 4711.");

    const [first] = (await fakes.requests("openai")).slice(-2).map((request) => request.body as OpenAiBody);
    // The model's window no longer holds it...
    expect(JSON.stringify(first!.messages)).not.toContain("4711");
    // ...and the search finds it, as the first (best) hit.
    expect((await toolResult()).split("\n")[1]).toMatch(
      /^\[#1 · \d{4}-\d{2}-\d{2} \d{2}:\d{2} · user\] Hi! Note for later: my locker code is 4711\.$/,
    );
  }, 180_000);

  it("one chat cannot find another's words", async () => {
    await fakes.script("openai", openaiText("Noted."));
    await say("the vault code is 9931");
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "search_history", arguments: { query: "vault code 9931" } }]),
      openaiText("I have nothing on that."),
    );
    await ask("what is the vault code?", "I have nothing on that.", OTHER_PRIVATE_CHAT);
    expect(await toolResult()).toBe('No message in this chat matches "vault code 9931".');

    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "search_history", arguments: { query: "vault code 9931" } }]),
      openaiText("It is 9931."),
    );
    await ask("and here?", "It is 9931.");
    expect(await toolResult()).toContain("the vault code is 9931");
  });

  it("/new empties the window but search still reaches the past; a chat that keeps no archive loses it", async () => {
    await fakes.script("openai", openaiText("Noted."));
    await say("the boat is called Aurora");
    await ask("/new", "Started a fresh conversation");
    await settled(PRIVATE_CHAT);
    expect(await storedCounts(PRIVATE_CHAT)).toEqual({ live: 0, archived: 2 });
    await ask("/status", "2 more archived");

    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "search_history", arguments: { query: "boat" } }]),
      openaiText("Aurora."),
    );
    await ask("what is the boat called?", "Aurora.");
    const [asked] = (await fakes.requests("openai")).slice(-2).map((request) => request.body as OpenAiBody);
    expect(JSON.stringify(asked!.messages)).not.toContain("Aurora");
    expect(await toolResult()).toContain("the boat is called Aurora");

    await admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify({ historyRetentionDays: 0 }) });
    await ask("/new", "Earlier messages are deleted");
    await settled(PRIVATE_CHAT);
    expect(await storedCounts(PRIVATE_CHAT)).toEqual({ live: 0, archived: 0 });
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "search_history", arguments: { query: "boat" } }]),
      openaiText("I don't know."),
    );
    await ask("the boat?", "I don't know.");
    expect(await toolResult()).toBe('No message in this chat matches "boat".');
  });
});
