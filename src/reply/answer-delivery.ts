import type { RichMode } from "../config/settings.ts";
import type { SendOptions, TelegramClient } from "../telegram/client.ts";
import { failureOf, isRichRefusal } from "../telegram/failure.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { closeOpenFence } from "../telegram/rich-partial.ts";
import { needsRich, renderRich } from "../telegram/rich-render.ts";
import { stepsBlock, type ToolStep } from "./steps-summary.ts";

export interface RichOptions {
  mode: RichMode;
  /** Telegram refused a rich message in this chat a short while ago: the HTML path until that is forgotten. */
  refused: boolean;
  /** Telegram refused a rich message just now; the chat remembers it (`missing`: the server has no rich methods). */
  onRefused: (reason: { missing: boolean; description: string }) => void;
  /** End a rich answer that used tools with a collapsed list of them. */
  showSteps: boolean;
}

/** A turn's answer as it is delivered: the model's Markdown, and the tool calls that led to it. */
export interface FinalAnswerText {
  markdown: string;
  steps: readonly ToolStep[];
}

/**
 * The final form of an answer, chosen and sent in one place: rich messages (Telegram's Markdown, cut at block
 * boundaries within the limits) when the chat's mode asks for them and Telegram takes them here, else Telegram HTML
 * split at 4,096 characters. A refusal of the rich form (see isRichRefusal) sends the same answer on the HTML path at
 * once and is remembered; anything else (a 5xx after the retries, a timeout, a dropped connection) fails the
 * delivery as it is: an uncertain send is never repeated in another form, so nothing arrives twice.
 */
export class AnswerDelivery {
  private refusedNow = false;

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
    private readonly rich: RichOptions,
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
    this.rich.onRefused({ missing: /^404\b/.test(description), description });
  }

  /** `refuse` for a thrown refusal. */
  private refuseError(error: unknown): void {
    this.refuse(failureOf(error).description);
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
    const rendering = renderRich(withSteps);
    if (rendering === undefined) return undefined;
    const wanted = this.rich.mode === "always" || options.streamed === true || needsRich(rendering);
    return wanted ? rendering.pieces : undefined;
  }

  /** Sends a whole answer as new messages, in its final form; true once Telegram has all of it. */
  async send(answer: FinalAnswerText, options: SendOptions): Promise<boolean> {
    const pieces = this.richPiecesOf(answer);
    if (pieces) return this.sendRich(pieces, answer, options);
    await this.sendHtml(answer.markdown, options);
    return true;
  }

  /** The HTML path: Telegram HTML, split at 4,096 characters. */
  async sendHtml(markdown: string, options: SendOptions): Promise<void> {
    await this.telegram.sendMarkdown(this.target, markdown, options);
  }

  /**
   * Rich pieces from the `first`, as new messages. A refusal of the rich form sends the rest on the HTML path (the
   * whole answer when nothing went yet); any other failure is thrown.
   */
  async sendRich(
    pieces: readonly string[],
    answer: FinalAnswerText,
    options: SendOptions,
    first = 0,
  ): Promise<boolean> {
    for (let index = first; index < pieces.length; index++) {
      try {
        await this.telegram.sendRich(
          this.target,
          pieces[index]!,
          index === 0 && options.replyToMessageId !== undefined ? { replyToMessageId: options.replyToMessageId } : {},
        );
      } catch (error) {
        if (!isRichRefusal(error)) throw error;
        this.refuseError(error);
        if (index === 0) await this.sendHtml(answer.markdown, options);
        else await this.sendHtml(pieces.slice(index).join("\n\n"), withoutReply(options));
        return true;
      }
    }
    return true;
  }
}

function withoutReply(options: SendOptions): SendOptions {
  return options.deadline === undefined ? {} : { deadline: options.deadline };
}
