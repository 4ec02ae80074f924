import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../fakes/server.ts";
import {
  fakes,
  GROUP_CHAT,
  mediaUpdate,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  post,
  sentText,
  session,
  settled,
  storedHistory,
  textUpdate,
} from "./helpers.ts";

type ChatMessages = { role: string; content: unknown }[];

function messagesOf(call: RecordedRequest | undefined): ChatMessages {
  return (call?.body as { messages?: ChatMessages } | undefined)?.messages ?? [];
}

function roles(call: RecordedRequest | undefined): string[] {
  return messagesOf(call).map((message) => message.role);
}

function userTexts(call: RecordedRequest | undefined): unknown[] {
  return messagesOf(call)
    .filter((message) => message.role === "user")
    .map((message) => message.content);
}

async function inbox(chatId: number): Promise<{ status: string; error: string | null }[]> {
  return runInDurableObject(session(chatId), (_instance, state) =>
    state.storage.sql
      .exec<{ status: string; error: string | null }>("SELECT status, error FROM inbox ORDER BY id")
      .toArray(),
  );
}

async function history(chatId: number): Promise<{ role: string; content: string }[]> {
  return (await storedHistory(chatId)).map(({ role, content }) => ({ role, content }));
}

async function bufferedUsage(chatId: number): Promise<{ inputTokens: number; outputTokens: number }[]> {
  const rows = await runInDurableObject(session(chatId), (_instance, state) =>
    state.storage.sql.exec<{ record: string }>("SELECT record FROM usage_buffer ORDER BY id").toArray(),
  );
  return rows.map((row) => JSON.parse(row.record) as { inputTokens: number; outputTokens: number });
}

async function sentTo(chatId: number): Promise<string[]> {
  return (await fakes.requests("telegram", { method: "sendMessage", chatId })).map(sentText);
}

describe("a burst of messages", () => {
  it("is one turn while nothing is shown: the model call starts over with both, and one answer comes", async () => {
    await fakes.script("openai", { ...openaiText("never shown"), delayMs: 10_000 }, openaiText("Hello! It is sunny."));
    await post(textUpdate("hi"));
    await fakes.wait("openai");
    await post(textUpdate("what's the weather?"));
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    await settled(PRIVATE_CHAT);

    expect(await sentTo(PRIVATE_CHAT)).toEqual(["Hello! It is sunny."]);
    const calls = await fakes.requests("openai");
    expect(calls).toHaveLength(2);
    expect(userTexts(calls[0])).toEqual(["hi"]);
    expect(userTexts(calls[1])).toEqual(["hi", "what's the weather?"]);
    expect(roles(calls[1]).filter((role) => role === "assistant")).toEqual([]);
    expect(await inbox(PRIVATE_CHAT)).toEqual([
      { status: "done", error: null },
      { status: "done", error: null },
    ]);
    expect(await history(PRIVATE_CHAT)).toEqual([
      { role: "user", content: "hi" },
      { role: "user", content: "what's the weather?" },
      { role: "assistant", content: "Hello! It is sunny." },
    ]);
    // The dropped call reported no usage (it was cut off): its input is counted by estimate, on top of the 10 tokens
    // the call that answered reported.
    const [usage, ...more] = await bufferedUsage(PRIVATE_CHAT);
    expect(more).toEqual([]);
    expect(usage!.outputTokens).toBe(5);
    expect(usage!.inputTokens).toBeGreaterThan(10 + 100);
  });

  it("does not send 'typing…' again when the call starts over: the first attempt's still shows", async () => {
    await fakes.script(
      "openai",
      { ...openaiText("never shown"), delayMs: 10_000 },
      { ...openaiText("Both answered."), delayMs: 600 },
    );
    await post(textUpdate("hi"));
    await fakes.wait("openai");
    // The first attempt waits long enough for its "typing…" to go out.
    await fakes.wait("telegram", { method: "sendChatAction", chatId: PRIVATE_CHAT });
    await post(textUpdate("and one more thing"));
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    await settled(PRIVATE_CHAT);

    expect(await sentTo(PRIVATE_CHAT)).toEqual(["Both answered."]);
    expect(await fakes.requests("openai")).toHaveLength(2);
    // The second attempt kept someone waiting 600 ms (past the 250 ms after which a first attempt sends one).
    expect(await fakes.requests("telegram", { method: "sendChatAction", chatId: PRIVATE_CHAT })).toHaveLength(1);
  });

  it("takes in three messages sent one after another, in order", async () => {
    await fakes.script(
      "openai",
      { ...openaiText("never shown"), delayMs: 10_000 },
      { ...openaiText("never shown either"), delayMs: 10_000 },
      openaiText("One answer to all three."),
    );
    await post(textUpdate("hi"));
    await fakes.wait("openai");
    await post(textUpdate("I have a question"));
    await fakes.wait("openai", { count: 2 });
    await post(textUpdate("what is 2 + 2?"));
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    await settled(PRIVATE_CHAT);

    expect(await sentTo(PRIVATE_CHAT)).toEqual(["One answer to all three."]);
    const calls = await fakes.requests("openai");
    expect(calls.map(userTexts)).toEqual([
      ["hi"],
      ["hi", "I have a question"],
      ["hi", "I have a question", "what is 2 + 2?"],
    ]);
    expect((await inbox(PRIVATE_CHAT)).map((row) => row.status)).toEqual(["done", "done", "done"]);
    expect((await history(PRIVATE_CHAT)).map((row) => row.role)).toEqual(["user", "user", "user", "assistant"]);
  });

  it("lets a flood settle: from the third message on, the call is made again once they stop coming", async () => {
    await fakes.script(
      "openai",
      { ...openaiText("never shown"), delayMs: 10_000 },
      { ...openaiText("never shown either"), delayMs: 10_000 },
      openaiText("One answer to all five."),
      // For a machine that held a message past the quiet: the call made once more answers the same.
      openaiText("One answer to all five."),
    );
    await post(textUpdate("hi"));
    await fakes.wait("openai");
    await post(textUpdate("forwarding you a thread"));
    await fakes.wait("openai", { count: 2 });
    // Three more, 30 ms apart, as Telegram delivers forwarded messages: one call for them, not one each (the gap is
    // this test's input, long enough for a call to be made again between them when nothing settles).
    for (const text of ["one", "two", "three"]) {
      await post(textUpdate(text));
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    await settled(PRIVATE_CHAT);

    expect(await sentTo(PRIVATE_CHAT)).toEqual(["One answer to all five."]);
    const calls = await fakes.requests("openai");
    // Three calls (a call made again for each would be five); one more if the machine held a message past the quiet.
    expect(calls.length).toBeLessThan(5);
    expect(userTexts(calls.at(-1))).toEqual(["hi", "forwarding you a thread", "one", "two", "three"]);
  });

  it("takes in a message sent before the model is called (a voice note being transcribed): one call", async () => {
    await fakes.file({ fileId: "voice-b", base64: Buffer.from("OggS fake opus").toString("base64") });
    await fakes.script("openai", {
      path: "/openai/v1/audio/transcriptions",
      body: { text: "Hello from a voice note." },
      delayMs: 1500,
    });
    await post(
      mediaUpdate({
        voice: {
          file_id: "voice-b",
          file_unique_id: "voice-b-u",
          duration: 3,
          mime_type: "audio/ogg",
          file_size: 4000,
        },
      }),
    );
    await fakes.wait("openai");
    await post(textUpdate("and one more thing"));
    const [answer] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    await settled(PRIVATE_CHAT);

    expect(sentText(answer)).toMatch(/^echo: .*Hello from a voice note\. \| and one more thing$/);
    const chats = (await fakes.requests("openai")).filter((call) => call.path.endsWith("/chat/completions"));
    expect(chats).toHaveLength(1);
    expect((await inbox(PRIVATE_CHAT)).map((row) => row.status)).toEqual(["done", "done"]);
    // Nothing was dropped, so nothing was estimated: the tokens are the ones the one call reported.
    const [usage] = await bufferedUsage(PRIVATE_CHAT);
    expect(usage!.inputTokens).toBe(10);
  });

  it("leaves a message to the next turn once a tool step is on screen", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "remember", arguments: { fact: "Ada likes tea" } }]),
      { ...openaiText("Noted."), delayMs: 1500 },
      openaiText("And noted that too."),
    );
    await post(textUpdate("remember that I like tea"));
    const [status] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sentText(status)).toContain("⚙️ remember");
    await post(textUpdate("and biscuits"));
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 3 });
    await settled(PRIVATE_CHAT);

    expect((await sentTo(PRIVATE_CHAT)).slice(1)).toEqual(["Noted.", "And noted that too."]);
    const calls = await fakes.requests("openai");
    expect(calls).toHaveLength(3);
    expect(userTexts(calls[2])).toEqual(["remember that I like tea", "and biscuits"]);
    expect(
      (await history(PRIVATE_CHAT)).map((row) => row.content).filter((text) => text === "and biscuits"),
    ).toHaveLength(1);
  });

  it("never takes in a command, nor a message queued after one", async () => {
    await fakes.script("openai", { ...openaiText("first answer"), delayMs: 1000 }, openaiText("second answer"));
    await post(textUpdate("hi"));
    await fakes.wait("openai");
    await post(textUpdate("/help"));
    await post(textUpdate("and then this"));
    const sent = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 3 });
    await settled(PRIVATE_CHAT);

    expect(sent.map(sentText)).toEqual(["first answer", expect.stringContaining("/new"), "second answer"]);
    const calls = await fakes.requests("openai");
    expect(calls).toHaveLength(2);
    expect(userTexts(calls[0])).toEqual(["hi"]);
    expect(userTexts(calls[1])).toEqual(["hi", "and then this"]);
  });

  it("acts as the least privileged of its senders: a member's message joining an admin's turn", async () => {
    await fakes.script(
      "openai",
      { ...openaiText("never shown"), delayMs: 10_000 },
      openaiToolCalls([{ name: "remember", arguments: { fact: "the group meets on Fridays" } }]),
      openaiText("Noted."),
    );
    await post(textUpdate("@testbot we meet on Fridays", { chatId: GROUP_CHAT, fromId: 1001 }));
    await fakes.wait("openai");
    const member = textUpdate("@testbot remember that", { chatId: GROUP_CHAT, fromId: 501 });
    await post(member);
    const sent = await fakes.wait("telegram", { method: "sendMessage", chatId: GROUP_CHAT, count: 2 });
    await settled(GROUP_CHAT);

    const calls = await fakes.requests("openai");
    expect(calls).toHaveLength(3);
    expect(userTexts(calls[1])).toEqual([
      expect.stringContaining("we meet on Fridays"),
      expect.stringContaining("remember that"),
    ]);
    // The fact is the member's: the admin's message lends the turn no rights, nor its name.
    const facts = await env.DB.prepare("SELECT content, created_by FROM memories WHERE chat_id = ?")
      .bind(GROUP_CHAT)
      .all();
    expect(facts.results).toEqual([{ content: "the group meets on Fridays", created_by: 501 }]);
    // The answer replies to the last message it answers: the member's.
    const answer = sent.find((request) => sentText(request) === "Noted.");
    const memberMessageId = (member.message as { message_id: number }).message_id;
    expect(answer?.body).toMatchObject({ reply_parameters: { message_id: memberMessageId } });
    expect((await inbox(GROUP_CHAT)).map((row) => row.status)).toEqual(["done", "done"]);
  });

  it("may be stopped by whoever joined it, and its rows end together", async () => {
    await fakes.script(
      "openai",
      { ...openaiText("never shown"), delayMs: 10_000 },
      { ...openaiText("never delivered"), delayMs: 10_000 },
    );
    await post(textUpdate("@testbot a long question", { chatId: GROUP_CHAT, fromId: 501 }));
    await fakes.wait("openai");
    await post(textUpdate("@testbot and a detail", { chatId: GROUP_CHAT, fromId: 502 }));
    await fakes.wait("openai", { count: 2 });
    await post(textUpdate("/stop", { chatId: GROUP_CHAT, fromId: 502 }));
    await settled(GROUP_CHAT);

    const sent = await sentTo(GROUP_CHAT);
    expect(sent).not.toContain("Only the person who asked, or an admin, can stop this.");
    expect(sent).not.toContain("never delivered");
    const rows = await inbox(GROUP_CHAT);
    // The two messages failed together as stopped; the /stop itself was handled at once.
    expect(rows.map((row) => row.status)).toEqual(["failed", "failed", "done"]);
    expect(rows[0]!.error).toContain("cancelled");
    expect(rows[1]!.error).toEqual(rows[0]!.error);
    expect((await history(GROUP_CHAT)).map((row) => row.role)).toEqual(["user", "user"]);
  });
});
