import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  eventually,
  fakes,
  GROUP_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  session,
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
