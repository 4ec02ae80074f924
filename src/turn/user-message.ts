import type { Attachment, UserMessage } from "../protocol/messages.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";

const QUOTE_LIMIT = 500;

/** What a message's files became (see `src/media/ingest.ts`): attachments, and lines for what could not be read. */
export interface MessageFiles {
  attachments: readonly Attachment[];
  placeholders: readonly string[];
}

/** What the chat knows of a message's sender: an admin of the bot, or a member. */
export type SenderRole = "admin" | "member";

/**
 * The text a model sees for one Telegram message: in groups prefixed with the sender's name, id and role (names are
 * display names anyone can choose; the id and role say who is who), and with a short quote of the message it replies
 * to, so "what does this mean?" under someone's message makes sense. Its files ride along as attachments; a file that
 * could not be read is a line saying so. What the sender did not write themselves is marked as outside content
 * (outsideOf).
 */
export function userMessageOf(message: IncomingMessage, files?: MessageFiles, role?: SenderRole): UserMessage {
  const lines: string[] = [];
  if (message.replyTo) {
    const quoted =
      message.replyTo.text.length > QUOTE_LIMIT
        ? `${message.replyTo.text.slice(0, QUOTE_LIMIT)}…`
        : message.replyTo.text;
    lines.push(`[in reply to ${message.replyTo.fromName ?? "a message"}: "${quoted}"]`);
  }
  if (message.forwardedFrom !== undefined) lines.push(`[forwarded from ${message.forwardedFrom}]`);
  const from = message.from;
  const who = from ? `${from.name} (id ${from.id}${role ? `, ${role}` : ""})` : "Someone";
  const sender = message.chat.type === "private" ? "" : `${who}: `;
  lines.push(...(files?.placeholders ?? []));
  if (message.text.trim() !== "" || sender !== "") lines.push(`${sender}${message.text}`);
  const attachments = files?.attachments ?? [];
  const outside = outsideOf(message, attachments);
  return {
    role: "user",
    content: lines.join("\n"),
    ...(attachments.length > 0 ? { attachments: [...attachments] } : {}),
    ...(outside ? { outside } : {}),
    ...(message.chat.type !== "private" && from ? { from: from.id } : {}),
  };
}

/**
 * What of a message its sender did not write, as provenance: a forward's words, a file's text (a forwarded PDF can
 * carry instructions), a photo's content (text in a picture), an audio file's words, and a quoted message of someone
 * else (or of the bot, whose answer may retell a page).
 */
function outsideOf(message: IncomingMessage, attachments: readonly Attachment[]): string | undefined {
  if (message.forwardedFrom !== undefined) return `a forwarded message (from ${message.forwardedFrom.slice(0, 80)})`;
  const document = attachments.find((attachment) => attachment.kind === "document");
  if (document) return `the text of a file (${document.fileName.slice(0, 80) || "unnamed"})`;
  if (attachments.some((attachment) => attachment.kind === "image")) return "a photo's content";
  if (attachments.some((attachment) => attachment.kind === "transcript" && attachment.source === "audio")) {
    return "an audio file's words";
  }
  const reply = message.replyTo;
  if (reply && (reply.fromBot === true || reply.fromId !== message.from?.id)) {
    return reply.fromBot === true ? "a quoted answer of the bot" : "a quoted message of someone else";
  }
  return undefined;
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
        ...(last.user.from === undefined ? {} : { from: last.user.from }),
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
