import type { RichMode } from "../config/rich-modes.ts";
import type { OutboxParcel } from "../store/outbox-store.ts";
import type { SendOptions } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { closeOpenFence } from "../telegram/rich-partial.ts";
import { mayNeedRich, needsRich, renderRich } from "../telegram/rich-render.ts";
import type { Delivery, Outbox } from "./outbox.ts";
import { htmlParcel, richParcel } from "./outbox-steps.ts";
import { stepsBlock, type ToolStep } from "./steps-summary.ts";

export interface RichOptions {
  mode: RichMode;
  /** Telegram refused a rich message in this chat a short while ago: the HTML path until that is forgotten. */
  refused: boolean;
  /** Telegram refused a rich message just now, in these words; the chat remembers it (see rich-refusal.ts). */
  onRefused: (description: string) => void;
  /** End a rich answer that used tools with a collapsed list of them. */
  showSteps: boolean;
}

/** A turn's answer as it is delivered: the model's Markdown, and the tool calls that led to it. */
export interface FinalAnswerText {
  markdown: string;
  steps: readonly ToolStep[];
}

/**
 * The final form of an answer, chosen in one place and handed to the chat's outbox: rich messages (Telegram's
 * Markdown, cut at block boundaries within the limits) when the chat's mode asks for them and Telegram takes them
 * here, else Telegram HTML split at 4,096 characters. A refusal of the rich form sends the same answer on the HTML
 * path at once and is remembered; an unavailable Telegram (a 5xx after the retries, a timeout, a dropped connection)
 * leaves what is left of the answer in the outbox, in the same form, to go when Telegram is back (see outbox.ts).
 */
export class AnswerDelivery {
  private refusedNow = false;

  constructor(
    private readonly target: ChatTarget,
    private readonly rich: RichOptions,
    private readonly outbox: Outbox,
  ) {}

  /** Whether rich messages may be used for this turn (the chat's mode, and no refusal remembered or seen). */
  get richAvailable(): boolean {
    return this.rich.mode !== "off" && !this.rich.refused && !this.refusedNow;
  }

  /** Telegram refused a rich message or draft: from now on this turn and, for a while, the chat use the HTML path. */
  refuse(description: string): void {
    if (this.refusedNow) return;
    this.refusedNow = true;
    console.warn(`chat ${this.target.chatId}: rich messages refused (${description}); using HTML`);
    this.rich.onRefused(description);
  }

  /**
   * The rich pieces an answer goes out as, or undefined for the HTML path. `streamed`: the answer already shows as a
   * rich message, which its final form replaces in place (whatever the mode says, short of `off`).
   */
  richPiecesOf(answer: FinalAnswerText, options: { streamed?: boolean } = {}): string[] | undefined {
    if (!this.richAvailable) return undefined;
    const withSteps =
      this.rich.showSteps && answer.steps.length > 0
        ? `${closeOpenFence(answer.markdown)}\n\n${stepsBlock(answer.steps)}`
        : answer.markdown;
    const always = this.rich.mode === "always" || options.streamed === true;
    if (!always && !mayNeedRich(withSteps)) return undefined;
    const rendering = renderRich(withSteps);
    if (rendering === undefined) return undefined;
    const wanted = always || needsRich(rendering);
    return wanted ? rendering.pieces : undefined;
  }

  /** Delivers a whole answer as new messages, in its final form. */
  send(answer: FinalAnswerText, options: SendOptions): Promise<Delivery> {
    const pieces = this.richPiecesOf(answer);
    return this.post(
      pieces
        ? richParcel(this.target, pieces, answer.markdown, options.replyToMessageId)
        : htmlParcel(this.target, answer.markdown, options.replyToMessageId),
    );
  }

  /** Delivers an answer's final form as the steps given (a streamed answer's edits, then its new messages). */
  post(parcel: OutboxParcel): Promise<Delivery> {
    return this.outbox.post("answer", parcel);
  }
}
