import type { PaidCallGate } from "../budget/paid-calls.ts";
import { ingestMedia } from "../media/ingest.ts";
import type { UserMessage } from "../protocol/messages.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { ChatContext } from "./chat-context.ts";
import type { TurnInput } from "./turn-request.ts";
import { mergeAlbums, type SenderRole, userMessageOf } from "./user-message.ts";

/**
 * The turn's user messages from the Telegram messages waiting together: each message's files are brought into R2
 * (or transcribed), an album becomes one message, and what could not be read is told to the chat in one message
 * before the answer (and to the model, as a line in the user's message).
 */
async function userMessagesOf(
  ctx: ChatContext,
  messages: readonly IncomingMessage[],
  paid: PaidCallGate,
): Promise<UserMessage[]> {
  const entries: { message: IncomingMessage; user: UserMessage }[] = [];
  const notices: string[] = [];
  const quotes: string[] = [];
  for (const message of messages) {
    if (!message.media || message.media.length === 0) {
      entries.push({ message, user: userMessageOf(message, undefined, roleOf(ctx, message)) });
      continue;
    }
    const files = await ingestMedia(ctx.ingest, message.media, paid);
    notices.push(...files.notices);
    quotes.push(...files.transcripts.filter((text) => text.trim() !== "").map((text) => `🎤 “${text}”`));
    entries.push({ message, user: userMessageOf(message, files, roleOf(ctx, message)) });
  }
  if (quotes.length > 0 && (await quotesTranscripts(ctx))) notices.push(...quotes);
  if (notices.length > 0) {
    await ctx.outbox.notify(ctx.target, [...new Set(notices)].join("\n"));
  }
  return mergeAlbums(entries);
}

function roleOf(ctx: ChatContext, message: IncomingMessage): SenderRole {
  return ctx.access.isAdmin(message.from?.id) ? "admin" : "member";
}

/** The chat's `quoteTranscripts` setting (off unless set). */
async function quotesTranscripts(ctx: ChatContext): Promise<boolean> {
  const stored = await ctx.configs.get(ctx.chat.id);
  return stored.state === "valid" && stored.config.quoteTranscripts === true;
}

/** An admitted turn's messages as the model gets them: ready ones as they are, Telegram's with their files in. */
export function usersOf(ctx: ChatContext, input: TurnInput, paid: PaidCallGate): Promise<UserMessage[]> {
  return input.kind === "ready" ? Promise.resolve(input.users) : userMessagesOf(ctx, input.messages, paid);
}

/**
 * A turn's messages as they are kept when the turn is not admitted (a paused chat, a spent budget): their words, and
 * a line for each file, which is not brought in (nothing is downloaded or transcribed for a turn that will not run).
 */
export function usersWithoutFiles(input: TurnInput): UserMessage[] {
  if (input.kind === "ready") return input.users;
  return mergeAlbums(
    input.messages.map((message) => ({
      message,
      user: userMessageOf(message, {
        attachments: [],
        placeholders: (message.media ?? []).map((media) => `[${FILE_WORDS[media.kind]}, not read]`),
      }),
    })),
  );
}

const FILE_WORDS = { photo: "a photo", recording: "a recording", document: "a file" } as const;
/** Whether the person spoke to the bot: a voice note or a round video note among the messages (not an audio file). */
export function isSpokenTo(messages: readonly IncomingMessage[]): boolean {
  return messages.some((message) =>
    (message.media ?? []).some((item) => item.kind === "recording" && item.source !== "audio"),
  );
}
