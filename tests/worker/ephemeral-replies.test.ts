import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatSession } from "../../src/durable/chat-session.ts";
import { pendingActionsSlot } from "../../src/turn/pending-action-slot.ts";
import {
  buttonPress,
  fakes,
  GROUP_CHAT,
  OTHER_PRIVATE_CHAT,
  PRIVATE_CHAT,
  postUpdate,
  STRANGER_CHAT,
  say,
  session,
  settled,
} from "./helpers.ts";

/** A press Telegram knows of (the fake then takes an ephemeral reply to it), posted to the webhook. */
async function pressKnown(update: Record<string, unknown>): Promise<string> {
  const query = update.callback_query as { id: string; from: { id: number }; message: { chat: { id: number } } };
  await fakes.telegram({
    openQuery: { kind: "callback", id: query.id, chatId: query.message.chat.id, fromId: query.from.id },
  });
  const response = await postUpdate(update);
  expect(response.status).toBe(200);
  return query.id;
}

function bodyOf(request: { body: unknown }): Record<string, unknown> {
  return request.body as Record<string, unknown>;
}

describe("ephemeral replies to presses that are not the presser's", () => {
  it("tells a member who presses the admins' /model menu privately, and answers the press without words", async () => {
    const menu = await say("/model", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT });
    const messageId = (menu.result as { message_id: number }).message_id;
    const id = await pressKnown(
      buttonPress("model:openai:gpt-test", { chatId: GROUP_CHAT, fromId: OTHER_PRIVATE_CHAT, messageId }),
    );
    const [answer] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect(bodyOf(answer!)).toEqual({ callback_query_id: id });
    const ephemeral = (await fakes.requests("telegram", { method: "sendMessage" })).find(
      (request) => bodyOf(request).ephemeral_message_parameters !== undefined,
    );
    expect(bodyOf(ephemeral!)).toMatchObject({
      text: "Only the bot's admins can change the model.",
      ephemeral_message_parameters: { callback_query_id: id },
    });
    // Nothing public: no chat_id, and the fake kept no message of it in the group.
    expect(bodyOf(ephemeral!).chat_id).toBeUndefined();
    expect((ephemeral!.result as { receiver_user: { id: number } }).receiver_user.id).toBe(OTHER_PRIVATE_CHAT);
    const { messages } = await fakes.chatMessages(GROUP_CHAT);
    expect(messages.map((message) => message.text)).not.toContain("Only the bot's admins can change the model.");
  });

  it("tells a member who presses someone else's confirmation privately, and the request stays waiting", async () => {
    const menu = await say("/model", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT });
    const messageId = (menu.result as { message_id: number }).message_id;
    await settled(GROUP_CHAT);
    await runInDurableObject(session(GROUP_CHAT), (instance: ChatSession) => {
      instance.stores.meta.set(pendingActionsSlot, [
        {
          id: "abcdefabcdef",
          tool: "send_message",
          argumentsText: JSON.stringify({ text: "hi" }),
          summary: "send “hi”",
          askers: [PRIVATE_CHAT],
          createdAt: Date.now(),
        },
      ]);
    });
    const id = await pressKnown(
      buttonPress("confirm:abcdefabcdef", { chatId: GROUP_CHAT, fromId: OTHER_PRIVATE_CHAT, messageId }),
    );
    await fakes.wait("telegram", { method: "answerCallbackQuery" });
    const ephemeral = (await fakes.requests("telegram", { method: "sendMessage" })).find(
      (request) => bodyOf(request).ephemeral_message_parameters !== undefined,
    );
    expect(bodyOf(ephemeral!)).toMatchObject({
      text: "Only the person who asked, or an admin, can answer this.",
      ephemeral_message_parameters: { callback_query_id: id },
    });
    const waiting = await runInDurableObject(session(GROUP_CHAT), (instance: ChatSession) =>
      instance.stores.meta.get(pendingActionsSlot),
    );
    expect(waiting?.map((action) => action.id)).toEqual(["abcdefabcdef"]);
  });

  it("tells a stranger's press privately that the bot is private", async () => {
    await pressKnown(buttonPress("stop:x", { chatId: STRANGER_CHAT, messageId: 7 }));
    await fakes.wait("telegram", { method: "answerCallbackQuery" });
    const [reply] = await fakes.wait("telegram", { method: "sendMessage" });
    expect(bodyOf(reply!)).toMatchObject({ text: "This bot is private." });
    expect(bodyOf(reply!).ephemeral_message_parameters).toBeDefined();
  });

  it("falls back to the press's notice when Telegram refuses the ephemeral reply (a press it no longer knows)", async () => {
    const menu = await say("/model", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT });
    const messageId = (menu.result as { message_id: number }).message_id;
    // Not opened in the fake: "query is too old".
    await postUpdate(
      buttonPress("model:openai:gpt-test", { chatId: GROUP_CHAT, fromId: OTHER_PRIVATE_CHAT, messageId }),
    );
    const [answer] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect(bodyOf(answer!).text).toBe("Only the bot's admins can change the model.");
  });

  it("keeps what the presser did as a notice: an admin's model choice", async () => {
    const menu = await say("/model", { chatId: PRIVATE_CHAT });
    const messageId = (menu.result as { message_id: number }).message_id;
    await pressKnown(buttonPress("model:anthropic:claude-sonnet-4-5", { messageId }));
    const [answer] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect(bodyOf(answer!).text).toBe("Now anthropic · claude-sonnet-4-5, from the next message.");
    const sent = await fakes.requests("telegram", { method: "sendMessage" });
    expect(sent.some((request) => bodyOf(request).ephemeral_message_parameters !== undefined)).toBe(false);
  });
});
