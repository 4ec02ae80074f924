import { runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  fakes,
  GROUP_CHAT,
  generationStopped,
  PRIVATE_CHAT,
  postUpdate,
  STRANGER_CHAT,
  say,
  sentText,
  session,
  textUpdate,
  WEBHOOK_SECRET,
} from "./helpers.ts";

describe("POST /telegram/webhook", () => {
  it("refuses a missing or wrong secret with 401 and queues nothing", async () => {
    const update = textUpdate("hello");
    expect((await postUpdate(update, null)).status).toBe(401);
    expect((await postUpdate(update, "wrong-secret")).status).toBe(401);
    expect((await postUpdate(update, "test-webhook-secret-but-longer")).status).toBe(401);
    const pending = await runInDurableObject(session(PRIVATE_CHAT), (_instance, state) =>
      state.storage.sql.exec("SELECT count(*) AS n FROM inbox").one(),
    );
    expect(pending.n).toBe(0);
    expect(await fakes.requests("openai")).toHaveLength(0);
  });

  it("takes a press of a draft's stop control, from an allowed private chat only, and stops nothing idle", async () => {
    const idle = await postUpdate(generationStopped(77));
    expect(idle.status).toBe(200);
    expect(await idle.json()).toEqual({ ok: true, result: "not running" });
    const stranger = await postUpdate(generationStopped(77, { chatId: STRANGER_CHAT }));
    expect(await stranger.json()).toEqual({ ok: true, ignored: "chat not allowed" });
    const malformed = await postUpdate({ update_id: 9, stopped_message_generation: { chat: { id: 1 } } });
    expect(malformed.status).toBe(400);
    expect(await fakes.requests("telegram")).toHaveLength(0);
  });

  it("answers 400 to a body that is not JSON, or JSON that is not an update", async () => {
    const notJson = await postUpdate("{not json");
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: "invalid_json" });
    const notUpdate = await postUpdate({ hello: "world" });
    expect(notUpdate.status).toBe(400);
    expect(await notUpdate.json()).toMatchObject({ error: "invalid_update" });
    const badMessage = await postUpdate({ update_id: 5, message: { message_id: "x" } });
    expect(badMessage.status).toBe(400);
  });

  it("counts the body limit in bytes, not characters, and refuses a body over it before reading it whole", async () => {
    // 600,000 two-byte characters: 1.2 MB, over the 1 MB limit though fewer than a million characters.
    const wide = await postUpdate(textUpdate("é".repeat(600_000)));
    expect(wide.status).toBe(413);
    expect(await wide.json()).toMatchObject({ error: "too_large" });
    // A body that does not say its length is cut off as it arrives.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 20; index++) controller.enqueue(new Uint8Array(100_000).fill(32));
        controller.close();
      },
    });
    const streamed = await exports.default.fetch("http://bot.test/telegram/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": WEBHOOK_SECRET },
      body: stream,
    });
    expect(streamed.status).toBe(413);
    expect(await fakes.requests("openai")).toHaveLength(0);
  });

  it("ignores update kinds it does not handle with 200", async () => {
    const kinds = [
      {
        update_id: 900,
        edited_message: { message_id: 1, date: 1, chat: { id: PRIVATE_CHAT, type: "private" }, text: "edit" },
      },
      { update_id: 901, channel_post: { message_id: 1, date: 1, chat: { id: -100, type: "channel" }, text: "post" } },
      { update_id: 902, my_chat_member: { chat: { id: GROUP_CHAT, type: "group" } } },
      {
        update_id: 903,
        message: { message_id: 1, date: 1, chat: { id: PRIVATE_CHAT, type: "private" }, sticker: { file_id: "s" } },
      },
    ];
    for (const update of kinds) {
      const response = await postUpdate(update);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ok: true, ignored: expect.any(String) });
    }
    expect(await fakes.requests("openai")).toHaveLength(0);
  });

  it("queues a text message durably, answers at once, and a redelivery is a no-op", async () => {
    const update = textUpdate("hello there");
    const first = await postUpdate(update);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, result: "queued" });
    const again = await postUpdate(update);
    expect(await again.json()).toEqual({ ok: true, result: "duplicate" });

    const [answer] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sentText(answer)).toContain("echo: hello there");
    // Exactly one model call and one answer for the two deliveries.
    expect(await fakes.requests("openai")).toHaveLength(1);
    expect(await fakes.requests("telegram", { method: "sendMessage" })).toHaveLength(1);
  });

  it("handles captions like text", async () => {
    const answer = await say("a photo of my cat", { caption: true });
    expect(sentText(answer)).toContain("a photo of my cat");
  });

  it("health says what is configured, without values", async () => {
    const response = await exports.default.fetch("http://bot.test/health");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ok: boolean; missing: string[] };
    expect(body).toEqual({
      ok: true,
      plan: "paid",
      missing: [],
      problems: [],
      // The tests bind no Vectorize index: a choice of the deployment, said as what is off, not as a problem.
      off: [{ feature: "search by meaning in search_history", why: expect.stringContaining("HISTORY_VECTORS") }],
    });
    expect(JSON.stringify(body)).not.toContain("test-webhook-secret");
  });
});

describe("access", () => {
  it("tells a stranger its chat id at most once an hour and never calls the model", async () => {
    await postUpdate(textUpdate("hi", { chatId: STRANGER_CHAT }));
    const [notice] = await fakes.wait("telegram", { method: "sendMessage", chatId: STRANGER_CHAT });
    expect(sentText(notice)).toContain(String(STRANGER_CHAT));
    await postUpdate(textUpdate("hello?", { chatId: STRANGER_CHAT }));
    // The second message is processed (its inbox row finishes) without a second notice.
    await waitForInboxDrained(STRANGER_CHAT);
    expect(await fakes.requests("telegram", { method: "sendMessage", chatId: STRANGER_CHAT })).toHaveLength(1);
    expect(await fakes.requests("openai")).toHaveLength(0);
  });

  it("in a group answers only when mentioned, replied to, or commanded", async () => {
    const group = { chatId: GROUP_CHAT };
    // Not addressed: ignored in the webhook, nothing queued.
    const ignored = await postUpdate(textUpdate("just chatting", group));
    expect(await ignored.json()).toMatchObject({ ignored: "not addressed to the bot" });
    const otherBot = await postUpdate(textUpdate("/help@otherbot", group));
    expect(await otherBot.json()).toMatchObject({ ignored: "not addressed to the bot" });

    const mentioned = await say("@testbot what is 2+2?", { ...group, firstName: "Grace" });
    expect(sentText(mentioned)).toContain("Grace (id 1001, admin): @testbot what is 2+2?");
    const replied = await say("and 3+3?", { ...group, count: 2, replyTo: { fromId: 123456, isBot: true, text: "4" } });
    expect(sentText(replied)).toContain("and 3+3?");
    const commanded = await say("/help@testbot", { ...group, count: 3 });
    expect(sentText(commanded)).toContain("/new");
    // getMe was asked once and cached.
    expect(await fakes.requests("telegram", { method: "getMe" })).toHaveLength(1);
    // The group answers reply to the message they answer.
    expect((mentioned.body as { reply_parameters?: unknown }).reply_parameters).toBeDefined();
  });
});

async function waitForInboxDrained(chatId: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const open = await runInDurableObject(session(chatId), (_instance, state) =>
      state.storage.sql.exec("SELECT count(*) AS n FROM inbox WHERE status IN ('pending','processing')").one(),
    );
    const alarm = await runInDurableObject(session(chatId), (_instance, state) => state.storage.getAlarm());
    if (open.n === 0 && alarm === null) return;
    await scheduler.wait(10);
  }
  throw new Error("inbox not drained");
}
