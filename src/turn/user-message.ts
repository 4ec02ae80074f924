import type { UserMessage } from "../protocol/messages.ts";
import type { IncomingMessage } from "../telegram/update.ts";

const QUOTE_LIMIT = 500;

/**
 * The text a model sees for one Telegram message: in groups prefixed with the sender's name, and with a short quote
 * of the message it replies to, so "what does this mean?" under someone's message makes sense.
 */
export function userMessageOf(message: IncomingMessage): UserMessage {
  const lines: string[] = [];
  if (message.replyTo) {
    const quoted =
      message.replyTo.text.length > QUOTE_LIMIT
        ? `${message.replyTo.text.slice(0, QUOTE_LIMIT)}…`
        : message.replyTo.text;
    lines.push(`[in reply to ${message.replyTo.fromName ?? "a message"}: "${quoted}"]`);
  }
  const sender = message.chat.type === "private" ? "" : `${message.from?.name ?? "Someone"}: `;
  lines.push(`${sender}${message.text}`);
  return { role: "user", content: lines.join("\n") };
}

export function scheduledTaskMessage(taskId: number, prompt: string): UserMessage {
  return {
    role: "user",
    content: `[Scheduled task #${taskId}, running now; the user is not waiting at the keyboard]\n${prompt}`,
  };
}
