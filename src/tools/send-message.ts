import * as z from "zod";
import { crossChatRefusal } from "./context.ts";
import { defineTool, ToolError } from "./registry.ts";

export const sendMessage = defineTool({
  name: "send_message",
  description:
    "Send a message to this chat right away, before your final answer (for progress on long work). " +
    "An admin in an admin chat may send to another allowed chat with `chatId`.",
  schema: z.object({
    text: z.string().trim().min(1).max(20_000).describe("The message, in Markdown."),
    chatId: z.number().int().optional().describe("Admins in admin chats only: another allowed chat to send to."),
  }),
  actsBeyondTheAnswer({ text, chatId }, context) {
    if (chatId === undefined || chatId === context.chatId) return undefined;
    const refusal = crossChatRefusal(context);
    if (refusal !== undefined) throw new ToolError(refusal);
    return `send “${text.length > 120 ? `${text.slice(0, 119)}…` : text}” to chat ${chatId}`;
  },
  async handler({ text, chatId }, context) {
    if (chatId !== undefined && chatId !== context.chatId) {
      const refusal = crossChatRefusal(context);
      if (refusal !== undefined) throw new ToolError(refusal);
      if (!context.isChatAllowed(chatId)) throw new ToolError(`Chat ${chatId} is not one of the bot's allowed chats.`);
      await context.sendMessage({ chatId }, text);
      return { content: `Sent to chat ${chatId}.` };
    }
    await context.sendMessage(
      { chatId: context.chatId, ...(context.threadId !== undefined ? { threadId: context.threadId } : {}) },
      text,
    );
    return { content: "Sent." };
  },
});
