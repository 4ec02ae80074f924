import { describe, expect, it } from "vitest";
import { admin, buttonPress, fakes, GROUP_CHAT, PRIVATE_CHAT, postUpdate, say } from "./helpers.ts";

/** A press as Telegram sends it with callback_query_mode (Bot API 10.5): no `message`, the inline id and the chat's instance. */
function inlinePress(data: string, options: { fromId: number; chatInstance: string; inlineMessageId: string }) {
  const update = buttonPress(data, { messageId: 1, fromId: options.fromId });
  const { message: _message, ...query } = update.callback_query as Record<string, unknown>;
  return {
    ...update,
    callback_query: { ...query, chat_instance: options.chatInstance, inline_message_id: options.inlineMessageId },
  };
}

function withInstance(update: Record<string, unknown>, chatInstance: string): Record<string, unknown> {
  return { ...update, callback_query: { ...(update.callback_query as object), chat_instance: chatInstance } };
}

describe("presses without `message` (Bot API 10.5's callback_query_mode)", () => {
  it("reach the chat their chat_instance was seen in, and edit the message by its inline id", async () => {
    const menu = await say("/model", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT });
    const messageId = (menu.result as { message_id: number }).message_id;
    // A press that names its chat teaches the way.
    await postUpdate(
      withInstance(
        buttonPress("model:openai:gpt-test", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, messageId }),
        "g-1",
      ),
    );
    await fakes.wait("telegram", { method: "answerCallbackQuery" });

    await postUpdate(
      inlinePress("model:anthropic:claude-sonnet-4-5", {
        fromId: PRIVATE_CHAT,
        chatInstance: "g-1",
        inlineMessageId: "inline-menu-1",
      }),
    );
    const answers = await fakes.wait("telegram", { method: "answerCallbackQuery", count: 2 });
    expect((answers[1]!.body as { text: string }).text).toBe(
      "Now anthropic · claude-sonnet-4-5, from the next message.",
    );
    const stored = (await (await admin(`/chats/${GROUP_CHAT}/config`)).json()) as { config: unknown };
    expect(stored.config).toMatchObject({ provider: "anthropic", model: "claude-sonnet-4-5" });
    const edits = await fakes.wait("telegram", { method: "editMessageText", count: 2 });
    expect(
      edits.some((edit) => (edit.body as { inline_message_id?: string }).inline_message_id === "inline-menu-1"),
    ).toBe(true);
  });

  it("are answered, not dropped, when their chat was never seen", async () => {
    const response = await postUpdate(
      inlinePress("stop:abc", { fromId: PRIVATE_CHAT, chatInstance: "never-seen", inlineMessageId: "inline-x" }),
    );
    expect(response.status).toBe(200);
    const [answer] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect((answer!.body as { text: string }).text).toContain("not known any more");
  });
});
