import type { SendOptions, TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { TELEGRAM_MESSAGE_LIMIT } from "../telegram/split.ts";

/**
 * The answer as it is written, shown in Telegram, and then its final form, delivered once. Streamed text is plain
 * (half-written Markdown does not render); the final answer is Telegram HTML, split at 4,096 characters. Two
 * strategies stream it (`DraftAnswer`, `EditedAnswer`), both through one `PacedWriter`.
 */
export interface LiveAnswer {
  /** More of the current model call's text. */
  delta(text: string): void;
  /** The text so far introduced a tool call: the next delta starts the answer afresh. */
  restart(): void;
  /** Whether any of the answer is on screen yet. */
  readonly visible: boolean;
  /** Delivers the whole answer; true once Telegram has all of it. */
  finish(markdown: string, options: SendOptions): Promise<boolean>;
  /** The turn ends without an answer: updates stop, and a partial message a chat already sees is marked as such. */
  abandon(note: string): Promise<void>;
}

/** Streamed text over this length is cut so that a message (or draft) never exceeds Telegram's limit. */
export const STREAM_LIMIT = TELEGRAM_MESSAGE_LIMIT - 96;
/** Shown at the end of an edited message while the answer is still being written. */
export const CURSOR = " ▍";

/** Delivers only the final answer (scheduled tasks: nobody is watching the stream). */
export class FinalAnswer implements LiveAnswer {
  readonly visible = false;

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
  ) {}

  delta(): void {}
  restart(): void {}

  async finish(markdown: string, options: SendOptions): Promise<boolean> {
    await this.telegram.sendMarkdown(this.target, markdown, options);
    return true;
  }

  async abandon(): Promise<void> {}
}

/** What a draft shows: the text so far, or its end when it is longer than a message (never half an emoji). */
export function streamedText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= STREAM_LIMIT) return trimmed;
  let start = trimmed.length - (STREAM_LIMIT - 1);
  // Telegram refuses a text that starts with the second half of a surrogate pair.
  if (isLowSurrogate(trimmed.charCodeAt(start))) start++;
  return `…${trimmed.slice(start)}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
