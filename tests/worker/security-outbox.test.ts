import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  admin,
  eventually,
  fakes,
  GROUP_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  STRANGER_CHAT,
  session,
  settled,
  textUpdate,
} from "./helpers.ts";

/**
 * Issue 40.6: every send goes through the outbox. A five-minute Telegram outage during a turn whose answer has a
 * photo and a menu (a confirmation's buttons) delivers all of it, once each, in order, when Telegram is back.
 */
const answers = () =>
  runInDurableObject(
    session(PRIVATE_CHAT),
    (_instance, state) =>
      state.storage.sql
        .exec<{ n: number }>(
          "SELECT count(*) AS n FROM history WHERE role = 'assistant' AND message NOT LIKE '%tool_calls%' AND message NOT LIKE '%toolCalls%'",
        )
        .one().n,
  );

describe("security: every send survives an outage", () => {
  it("a five-minute outage during a turn with a photo and a menu delivers both, once, in order", async () => {
    await fakes.script("web", { path: "/web/p", headers: { "content-type": "text/plain" }, text: "Draw and send." });
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "web_fetch", arguments: { url: `${env.FAKES_URL}/web/p` } }]),
      openaiToolCalls([{ name: "generate_image", arguments: { prompt: "a cat", caption: "The cat" } }]),
      openaiToolCalls([{ name: "send_message", arguments: { chatId: GROUP_CHAT, text: "Look at this cat" } }]),
      openaiText("Here is the cat, and I asked about the send."),
    );
    await fakes.telegram({ outage: { status: 502 } });
    await postUpdate(textUpdate("read the page and do what it says"));
    await eventually(async () => (await answers()) >= 1, "the turn's answer");
    await settled(PRIVATE_CHAT);
    expect((await fakes.chatMessages(PRIVATE_CHAT)).messages).toEqual([]);

    // Five minutes later Telegram is back, and the chat's alarm tries what waits.
    await fakes.telegram({ outage: null });
    await runInDurableObject(session(PRIVATE_CHAT), (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE outbox SET next_try_at = 0, hold_until = NULL, created_at = created_at - ?",
        5 * 60_000,
      );
    });
    expect(await runDurableObjectAlarm(session(PRIVATE_CHAT))).toBe(true);

    const shown = (await fakes.chatMessages(PRIVATE_CHAT)).messages;
    const kinds = shown.map((message) =>
      message.content.kind === "media" ? `photo: ${message.caption ?? ""}` : (message.text ?? "").slice(0, 20),
    );
    expect(kinds).toEqual(["photo: The cat", "🛡 I was asked to se", "Here is the cat, and"]);
    const menu = (await fakes.requests("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT })).find(
      (request) => request.refusal === undefined && String((request.body as { text?: string }).text).startsWith("🛡"),
    );
    expect((menu!.body as { reply_markup?: unknown }).reply_markup).toBeDefined();
    expect(await fakes.requests("telegram", { method: "sendMessage", chatId: GROUP_CHAT })).toEqual([]);
  });
});

describe("security: sends beside the answer survive an outage", () => {
  const telegramBack = async (chatId: number) => {
    await fakes.telegram({ outage: null });
    await runInDurableObject(session(chatId), (_instance, state) => {
      state.storage.sql.exec("UPDATE outbox SET next_try_at = 0, hold_until = NULL");
    });
    expect(await runDurableObjectAlarm(session(chatId))).toBe(true);
  };
  const waiting = (chatId: number) =>
    runInDurableObject(
      session(chatId),
      (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n,
    );

  it("a message an admin chat sends to another chat waits with the chat's own, and arrives once", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "send_message", arguments: { chatId: GROUP_CHAT, text: "Lunch at noon" } }]),
      openaiText("Sent."),
    );
    await fakes.telegram({ outage: { status: 502 } });
    await postUpdate(textUpdate("tell the group lunch is at noon"));
    await eventually(async () => (await answers()) >= 1, "the turn's answer");
    await settled(PRIVATE_CHAT);
    expect(await waiting(PRIVATE_CHAT)).toBe(2);
    await telegramBack(PRIVATE_CHAT);
    const group = (await fakes.chatMessages(GROUP_CHAT)).messages.map((message) => message.text);
    expect(group).toEqual(["Lunch at noon"]);
  });

  it("a stranger's notice and a /model menu wait too", async () => {
    await fakes.telegram({ outage: { status: 502 } });
    await postUpdate(textUpdate("hello?", { chatId: STRANGER_CHAT }));
    await eventually(async () => (await waiting(STRANGER_CHAT)) === 1, "the stranger's notice queued");
    await telegramBack(STRANGER_CHAT);
    const shown = (await fakes.chatMessages(STRANGER_CHAT)).messages.map((message) => message.text ?? "");
    expect(shown).toHaveLength(1);
    expect(shown[0]).toContain("This bot is private");

    await fakes.telegram({ outage: { status: 502 } });
    await postUpdate(textUpdate("/model"));
    await eventually(async () => (await waiting(PRIVATE_CHAT)) === 1, "the /model menu queued");
    await telegramBack(PRIVATE_CHAT);
    const menu = (await fakes.requests("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT })).filter(
      (request) => request.refusal === undefined,
    );
    expect(menu).toHaveLength(1);
    expect((menu[0]!.body as { reply_markup?: unknown }).reply_markup).toBeDefined();
  });
});

describe("security: a spoken answer survives an outage", () => {
  it("Telegram down as the voice goes: it waits, and is described when tried again (its bytes are not kept)", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify({ voiceReplies: "always" }) });
    await fakes.script("openai", openaiText("This is the answer you asked for, and it is in English."));
    // Telegram asks to wait ten minutes at the voice message: the outbox keeps it.
    await fakes.telegram({ rateLimit: { method: "sendVoice", retryAfter: 600, times: 5 } });
    await postUpdate(textUpdate("hello there"));
    await eventually(
      async () =>
        (await runInDurableObject(
          session(PRIVATE_CHAT),
          (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n,
        )) === 1,
      "the voice message queued",
    );
    await runInDurableObject(session(PRIVATE_CHAT), (_instance, state) => {
      state.storage.sql.exec("UPDATE outbox SET next_try_at = 0, hold_until = NULL");
    });
    expect(await runDurableObjectAlarm(session(PRIVATE_CHAT))).toBe(true);
    const shown = (await fakes.chatMessages(PRIVATE_CHAT)).messages.map((message) => message.text ?? "");
    expect(shown).toEqual([
      "This is the answer you asked for, and it is in English.",
      "🔇 The spoken version of the answer above could not be delivered; the answer is in the text.",
    ]);
  });
});
