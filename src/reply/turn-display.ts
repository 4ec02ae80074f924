import type { Settings } from "../config/settings.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { type SubrequestAllowance, UNMETERED } from "../lib/subrequest-meter.ts";
import type { TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { AnswerDelivery, type RichOptions } from "./answer-delivery.ts";
import { DisplayClock } from "./display-clock.ts";
import { DraftAnswer } from "./draft-answer.ts";
import { EditedAnswer } from "./edited-answer.ts";
import { type AnswerView, FinalAnswer, HIDDEN_STEPS, type LiveAnswer, type StepView } from "./live-answer.ts";
import type { Delivery, Outbox } from "./outbox.ts";
import { Pacer } from "./pacer.ts";
import { RichDraftAnswer } from "./rich-draft-answer.ts";
import { RichEditedAnswer } from "./rich-edited-answer.ts";
import { StatusLine } from "./status-line.ts";
import type { ToolStep } from "./steps-summary.ts";
import { Typing } from "./typing.ts";

/** The first streamed edit in a group waits this long, so that a quick answer is one formatted message. */
const FIRST_EDIT_AFTER_MS = 1_000;
/** Streamed calls to a group per minute, answer and status together: well under Telegram's 20. */
const GROUP_CALLS_PER_MINUTE = 15;
/** How long an answer may keep someone waiting before their message gets a 👀. */
const ACK_AFTER_MS = 1_500;

export interface TurnDisplayOptions {
  telegram: TelegramClient;
  target: ChatTarget;
  privateChat: boolean;
  /** Someone is waiting: the answer streams, a Stop button and a 👀 may appear. A scheduled task shows only its end. */
  interactive: boolean;
  stream: Settings["stream"];
  ackReaction: Settings["ackReaction"];
  /** The message the turn answers: acknowledged with 👀, and replied to (in groups). */
  messageId?: number;
  replyToMessageId?: number;
  /** Telegram refused drafts in this chat before: stream as an edited message instead. */
  draftsRefused: boolean;
  /** Telegram refused a draft just now (the chat remembers it). */
  onDraftsRefused: () => void;
  /** What a press of the Stop button sends back. */
  stopData: string;
  /** When "typing…" went out for this turn in an attempt that started over (see TypingOptions.shownAt). */
  typingShownAt?: number;
  /** The id of the turn's rich draft, which a `stopped_message_generation` update names. */
  draftId: number;
  /** Rich messages: when, whether Telegram refused them here lately, and whether an answer lists its tool steps. */
  rich: RichOptions;
  /** The chat's outbox: the final answer and the notices go through it, in order behind whatever waits there. */
  outbox: Outbox;
  /**
   * The invocation's subrequests: while they run low, the courtesies (drafts, edits, the status line, "typing…", the
   * 👀) wait and the final answer keeps their room. Unset: never low.
   */
  subrequests?: SubrequestAllowance;
  /**
   * Told once, when the display first asks Telegram to show anything (text, a step, the Stop button, the answer, a
   * failure); "typing…" and the 👀 reaction do not count. Until then the turn may start over with more messages.
   */
  onShown?: () => void;
}

/**
 * How one turn shows itself in Telegram, whatever made it: "typing…", the answer as it is written, its tool steps
 * and a way to stop it once the turn has run a moment, a 👀 when the answer keeps someone waiting, then the final
 * answer (delivered in one place, AnswerDelivery: a rich message or Telegram HTML), or a note that it was cut short.
 *
 * With rich messages, a private chat's answer grows in a rich draft whose thinking block shows the current step and
 * whose stop control stops the turn; a group's in one rich message edited in place, the step as its last line and
 * the Stop button under it. Without them (off, or refused by Telegram), a plain draft or one edited message, and a
 * status line of its own for the steps and the Stop button. Where they share a chat's limit, they share a pacer.
 *
 * While older messages wait in the chat's outbox (Telegram was unavailable), nothing streams and no status line
 * shows: a message sent now would arrive before them. The turn shows "typing…" and its answer queues behind them.
 */
export class TurnDisplay {
  private readonly answer: LiveAnswer;
  private readonly status: StepView;
  private readonly delivery: AnswerDelivery;
  private readonly typing: Typing;
  /** "typing…", the Stop button and the 👀, on one timer. */
  private readonly clock = new DisplayClock();
  private statusMessage: number | undefined;
  private shown = false;
  /** The invocation's subrequests, which every courtesy asks first. */
  private readonly allowance: SubrequestAllowance;

  constructor(private readonly options: TurnDisplayOptions) {
    const { telegram, target, privateChat, stream } = options;
    this.allowance = options.subrequests ?? UNMETERED;
    const { allowance } = this;
    // In a group the answer's edits and the status line share the group's limit; in a private chat drafts are not
    // messages, so the status line paces itself apart from them (one message a second).
    const pacer = new Pacer(
      privateChat
        ? { minIntervalMs: stream.draftIntervalMs, allowance }
        : { minIntervalMs: stream.editIntervalMs, perMinute: GROUP_CALLS_PER_MINUTE, allowance },
    );
    this.delivery = new AnswerDelivery(target, options.rich, options.outbox);
    const view = this.viewOf(pacer);
    this.answer = view.answer;
    this.status = view.steps;
    const { typingShownAt } = options;
    this.typing = new Typing({
      telegram,
      target,
      clock: this.clock,
      allowance,
      ...(typingShownAt === undefined ? {} : { shownAt: typingShownAt }),
    });
    if (options.interactive) {
      this.clock.after(stream.stopButtonAfterMs, () => {
        this.showing();
        this.status.offerStop(options.stopData);
      });
      this.acknowledgeLater();
    }
  }

  /** When "typing…" last went out for this display (an attempt that starts over hands it to the next). */
  get typingSentAt(): number | undefined {
    return this.typing.lastSentAt;
  }

  /** Whether any of the answer is on screen yet. */
  get visible(): boolean {
    return this.answer.visible;
  }

  /** More of the answer's text. */
  text(delta: string): void {
    if (delta !== "") this.showing();
    this.answer.delta(delta);
    this.status.writing();
  }

  /** A tool step; a new call means the text so far was its preamble, and the answer starts afresh after it. */
  tool(label: string, starts: boolean): void {
    this.showing();
    if (starts) this.answer.restart();
    this.status.show(label);
  }

  /** The turn's work is over: no more typing, Stop button or 👀, and the status line's last update has landed. */
  async settle(): Promise<void> {
    this.answer.textEnded();
    this.clock.stop();
    await this.typing.landed();
    this.statusMessage = await this.status.close();
  }

  /**
   * Delivers the whole answer (with the list of its tool steps where the chat shows them), then removes the status
   * line: Telegram has all of it, or the outbox keeps the rest for later, or it was refused (or failed here). The one
   * place an answer's final form is sent.
   */
  async deliver(markdown: string, steps: readonly ToolStep[] = []): Promise<Delivery> {
    const { replyToMessageId } = this.options;
    this.showing();
    let delivery: Delivery = "refused";
    await bestEffort("delivering an answer", async () => {
      delivery = await this.answer.finish({ markdown, steps }, replyToMessageId ? { replyToMessageId } : {});
    });
    await this.removeStatus();
    return delivery;
  }

  /** The turn ends without an answer: a partial one on screen is marked with `note`, and the person is told why. */
  async fail(note: string, message: string): Promise<void> {
    this.showing();
    // Nothing of an answer cut short stays on screen as if it were whole.
    await bestEffort("marking a cut-short answer", () => this.answer.abandon(note));
    await this.options.outbox.notify(this.options.target, message);
    await this.removeStatus();
  }

  /**
   * The turn starts over without this display (a message joined it before it showed anything): typing, its timers and
   * a status line that slipped out meanwhile go.
   */
  async discard(): Promise<void> {
    await this.settle();
    await this.removeStatus();
  }

  private showing(): void {
    if (this.shown) return;
    this.shown = true;
    this.options.onShown?.();
  }

  private async removeStatus(): Promise<void> {
    const id = this.statusMessage;
    if (id !== undefined)
      await bestEffort("removing a status line", () => this.options.telegram.deleteMessage(this.options.target, id));
  }

  /**
   * A private chat's answer streams as a rich draft (or a plain one without rich messages, or, where Telegram refused
   * drafts, as one edited message at one edit a second); a group's as one edited message sharing the group's pacer
   * (rich, or plain with a status line); a task's only as its final form.
   */
  private viewOf(pacer: Pacer): AnswerView {
    const { telegram, target, privateChat, interactive, replyToMessageId, draftId } = this.options;
    const delivery = this.delivery;
    if (this.options.outbox.waiting) return { answer: new FinalAnswer(delivery), steps: HIDDEN_STEPS };
    const statusLine = (shared: Pacer) => new StatusLine(telegram, target, shared);
    const plainEdited = (shared: Pacer, status: Pacer): AnswerView => ({
      answer: new EditedAnswer(telegram, target, shared, delivery, {
        ...(replyToMessageId ? { replyToMessageId } : {}),
        firstAfterMs: FIRST_EDIT_AFTER_MS,
      }),
      steps: statusLine(status),
    });
    const edited = (shared: Pacer, status: Pacer): AnswerView => {
      if (!delivery.richAvailable) return plainEdited(shared, status);
      const rich = new RichEditedAnswer({
        telegram,
        target,
        pacer: shared,
        delivery,
        ...(replyToMessageId ? { replyToMessageId } : {}),
        firstAfterMs: FIRST_EDIT_AFTER_MS,
        plain: () => plainEdited(shared, status),
      });
      return { answer: rich, steps: rich };
    };
    if (!interactive)
      return { answer: new FinalAnswer(delivery), steps: statusLine(privateChat ? perSecond(this.allowance) : pacer) };
    if (!privateChat) return edited(pacer, pacer);
    // In a private chat drafts are not messages: a status line paces itself apart from them (one message a second).
    if (this.options.draftsRefused) return edited(perSecond(this.allowance), perSecond(this.allowance));
    const withoutDrafts = () => {
      this.options.onDraftsRefused();
      return edited(perSecond(this.allowance), perSecond(this.allowance));
    };
    const plainDrafts = (): AnswerView => ({
      answer: new DraftAnswer(telegram, target, pacer, delivery, () => withoutDrafts().answer),
      steps: statusLine(perSecond(this.allowance)),
    });
    if (!delivery.richAvailable) return plainDrafts();
    const rich = new RichDraftAnswer({ telegram, target, pacer, delivery, draftId, plain: plainDrafts, withoutDrafts });
    return { answer: rich, steps: rich };
  }

  /** Puts 👀 on the message being answered once the answer has kept the person waiting a moment (where configured). */
  private acknowledgeLater(): void {
    const { ackReaction, messageId, privateChat, telegram, target } = this.options;
    if (messageId === undefined || ackReaction === "off" || (ackReaction === "private" && !privateChat)) return;
    this.clock.after(ACK_AFTER_MS, () => {
      if (this.answer.visible || !this.allowance.allowsCourtesy()) return;
      void bestEffort("acknowledging a message", () => telegram.setReaction(target, messageId, "👀"));
    });
  }
}

function perSecond(allowance: SubrequestAllowance): Pacer {
  return new Pacer({ minIntervalMs: 1000, allowance });
}
