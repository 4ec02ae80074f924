import type { SendOptions } from "../telegram/client.ts";
import { TELEGRAM_MESSAGE_LIMIT } from "../telegram/split.ts";
import type { AnswerDelivery, FinalAnswerText } from "./answer-delivery.ts";
import type { Delivery } from "./outbox.ts";

/**
 * The answer as it is written, shown in Telegram, and then its final form, delivered once (see AnswerDelivery: a rich
 * message, or Telegram HTML split at 4,096 characters). Five strategies stream it, all through one `PacedWriter`:
 * plain drafts (`DraftAnswer`) and rich drafts (`RichDraftAnswer`) in private chats, one plain edited message
 * (`EditedAnswer`) or one rich edited message (`RichEditedAnswer`) in groups, and none (`FinalAnswer`) for tasks.
 */
export interface LiveAnswer {
  /** More of the current model call's text. */
  delta(text: string): void;
  /** The text so far introduced a tool call: the next delta starts the answer afresh. */
  restart(): void;
  /** Whether any of the answer is on screen yet. */
  readonly visible: boolean;
  /**
   * The text is final (the model is done): no streamed update starts any more, so that none goes out between the
   * answer's end and its final form (under load, a draft there is a Telegram round trip in front of the answer).
   */
  textEnded(): void;
  /** Delivers the whole answer: Telegram has all of it, the outbox keeps the rest for later, or it was refused. */
  finish(answer: FinalAnswerText, options: SendOptions): Promise<Delivery>;
  /** The turn ends without an answer: updates stop, and a partial message a chat already sees is marked as such. */
  abandon(note: string): Promise<void>;
}

/**
 * Where a turn's steps show while it works: the status line (a message of its own, with the Stop button), or, on the
 * rich path, the answer itself (a rich draft's thinking block and stop control, a rich message's last line and
 * keyboard).
 */
export interface StepView {
  /** The current step. */
  show(text: string): void;
  /** Offers a way to stop the turn; a press of the Stop button sends `data` back. */
  offerStop(data: string): void;
  /** The answer is streaming. */
  writing(): void;
  /** Stops updates and waits for those under way; returns the id of a status message to delete, if one was sent. */
  close(): Promise<number | undefined>;
}

/** Steps shown nowhere: while older messages wait in the outbox, a turn shows nothing before its answer. */
export const HIDDEN_STEPS: StepView = {
  show() {},
  offerStop() {},
  writing() {},
  close: async () => undefined,
};

/** A strategy and where its steps show. */
export interface AnswerView {
  answer: LiveAnswer;
  steps: StepView;
}

/** Streamed text over this length is cut so that a message (or draft) never exceeds Telegram's limit. */
export const STREAM_LIMIT = TELEGRAM_MESSAGE_LIMIT - 96;
/** Shown at the end of an edited message while the answer is still being written. */
export const CURSOR = " ▍";

/** Delivers only the final answer (scheduled tasks: nobody is watching the stream). */
export class FinalAnswer implements LiveAnswer {
  readonly visible = false;

  constructor(private readonly delivery: AnswerDelivery) {}

  delta(): void {}
  restart(): void {}
  textEnded(): void {}

  finish(answer: FinalAnswerText, options: SendOptions): Promise<Delivery> {
    return this.delivery.send(answer, options);
  }

  async abandon(): Promise<void> {}
}

/** What a draft shows: the text so far, or its end when it is longer than a message (never half an emoji). */
export function streamedText(text: string): string {
  const trimmed = wholeCharacters(text).trim();
  if (trimmed.length <= STREAM_LIMIT) return trimmed;
  let start = trimmed.length - (STREAM_LIMIT - 1);
  // Telegram refuses a text that starts with the second half of a surrogate pair.
  if (isLowSurrogate(trimmed.charCodeAt(start))) start++;
  return `…${trimmed.slice(start)}`;
}

/**
 * A streamed text as far as its last whole character: a stream's piece may end with the first half of a surrogate
 * pair (its second half comes with the next piece), and Telegram refuses a text holding half an emoji.
 */
export function wholeCharacters(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
