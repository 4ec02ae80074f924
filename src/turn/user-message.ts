import type { Attachment, UserMessage } from "../protocol/messages.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";

const QUOTE_LIMIT = 500;

/** What a message's files became (see `src/media/ingest.ts`): attachments, and lines for what could not be read. */
export interface MessageFiles {
  attachments: readonly Attachment[];
  placeholders: readonly string[];
}

/**
 * The text a model sees for one Telegram message: in groups prefixed with the sender's name, and with a short quote
 * of the message it replies to, so "what does this mean?" under someone's message makes sense. Its files ride along
 * as attachments; a file that could not be read is a line saying so.
 */
export function userMessageOf(message: IncomingMessage, files?: MessageFiles): UserMessage {
  const lines: string[] = [];
  if (message.replyTo) {
    const quoted =
      message.replyTo.text.length > QUOTE_LIMIT
        ? `${message.replyTo.text.slice(0, QUOTE_LIMIT)}…`
        : message.replyTo.text;
    lines.push(`[in reply to ${message.replyTo.fromName ?? "a message"}: "${quoted}"]`);
  }
  const sender = message.chat.type === "private" ? "" : `${message.from?.name ?? "Someone"}: `;
  lines.push(...(files?.placeholders ?? []));
  if (message.text.trim() !== "" || sender !== "") lines.push(`${sender}${message.text}`);
  const attachments = files?.attachments ?? [];
  // A file's text was written outside the chat (a forwarded PDF can carry instructions): provenance marks it.
  const document = attachments.find((attachment) => attachment.kind === "document");
  return {
    role: "user",
    content: lines.join("\n"),
    ...(attachments.length > 0 ? { attachments: [...attachments] } : {}),
    ...(document ? { outside: `the text of a file (${document.fileName.slice(0, 80) || "unnamed"})` } : {}),
  };
}

/**
 * An album arrives as one message per photo (the caption on one of them): the messages of one album that arrive
 * together become one user message with all its files, so the model answers the album once.
 */
export function mergeAlbums(entries: readonly { message: IncomingMessage; user: UserMessage }[]): UserMessage[] {
  const merged: { groupId: string | undefined; user: UserMessage }[] = [];
  for (const { message, user } of entries) {
    const last = merged.at(-1);
    if (message.mediaGroupId !== undefined && last?.groupId === message.mediaGroupId) {
      const content = [last.user.content, user.content].filter((text) => text.trim() !== "").join("\n");
      const attachments = [...(last.user.attachments ?? []), ...(user.attachments ?? [])].slice(0, 20);
      const outside = last.user.outside ?? user.outside;
      last.user = {
        role: "user",
        content,
        ...(attachments.length > 0 ? { attachments } : {}),
        ...(outside === undefined ? {} : { outside }),
      };
      continue;
    }
    merged.push({ groupId: message.mediaGroupId, user });
  }
  return merged.map((entry) => entry.user);
}

export function scheduledTaskMessage(taskId: number, prompt: string): UserMessage {
  return {
    role: "user",
    content: `[Scheduled task #${taskId}, running now; the user is not waiting at the keyboard]\n${prompt}`,
  };
}
