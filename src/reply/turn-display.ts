import type { Settings } from "../config/settings.ts";
import { bestEffort } from "../lib/best-effort.ts";
import type { TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { DraftAnswer } from "./draft-answer.ts";
import { EditedAnswer } from "./edited-answer.ts";
import { FinalAnswer, type LiveAnswer } from "./live-answer.ts";
import { Pacer } from "./pacer.ts";
import { StatusLine } from "./status-line.ts";
import { startTyping } from "./typing.ts";

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
}

/**
 * How one turn shows itself in Telegram, whatever made it: "typing…", the answer as it is written (a draft in a
 * private chat, or, where drafts were refused and in groups and topics, one edited message), a status line for tool
 * steps with a Stop button once the turn has run a moment, a 👀 when the answer keeps someone waiting, then the
 * final answer, or a note that it was cut short. The answer and the status line share a pacer where they share a
 * chat's limit.
 */
export class TurnDisplay {
  private readonly answer: LiveAnswer;
  private readonly status: StatusLine;
  private readonly typing: { stop: () => Promise<void> };
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private statusMessage: number | undefined;

  constructor(private readonly options: TurnDisplayOptions) {
    const { telegram, target, privateChat, stream } = options;
    // In a group the answer's edits and the status line share the group's limit; in a private chat drafts are not
    // messages, so the status line paces itself apart from them (one message a second).
    const pacer = new Pacer(
      privateChat
        ? { minIntervalMs: stream.draftIntervalMs }
        : { minIntervalMs: stream.editIntervalMs, perMinute: GROUP_CALLS_PER_MINUTE },
    );
    this.status = new StatusLine(telegram, target, privateChat ? new Pacer({ minIntervalMs: 1000 }) : pacer);
    this.answer = this.answerOf(pacer);
    this.typing = startTyping(telegram, target);
    if (options.interactive) {
      this.timers.push(setTimeout(() => this.status.offerStop(options.stopData), stream.stopButtonAfterMs));
      this.acknowledgeLater();
    }
  }

  /** Whether any of the answer is on screen yet. */
  get visible(): boolean {
    return this.answer.visible;
  }

  /** More of the answer's text. */
  text(delta: string): void {
    this.answer.delta(delta);
    this.status.writing();
  }

  /** A tool step; a new call means the text so far was its preamble, and the answer starts afresh after it. */
  tool(label: string, starts: boolean): void {
    if (starts) this.answer.restart();
    this.status.show(label);
  }

  /** The turn's work is over: no more typing, Stop button or 👀, and the status line's last update has landed. */
  async settle(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    await this.typing.stop();
    this.statusMessage = await this.status.close();
  }

  /** Delivers the whole answer, then removes the status line; true once Telegram has all of the answer. */
  async deliver(markdown: string): Promise<boolean> {
    const { replyToMessageId } = this.options;
    const delivered = await bestEffort("delivering an answer", () =>
      this.answer.finish(markdown, replyToMessageId ? { replyToMessageId } : {}),
    );
    await this.removeStatus();
    return delivered;
  }

  /** The turn ends without an answer: a partial one on screen is marked with `note`, and the person is told why. */
  async fail(note: string, message: string): Promise<void> {
    // Nothing of an answer cut short stays on screen as if it were whole.
    await bestEffort("marking a cut-short answer", () => this.answer.abandon(note));
    await bestEffort("telling why a turn failed", () => this.options.telegram.sendPlain(this.options.target, message));
    await this.removeStatus();
  }

  private async removeStatus(): Promise<void> {
    const id = this.statusMessage;
    if (id !== undefined)
      await bestEffort("removing a status line", () => this.options.telegram.deleteMessage(this.options.target, id));
  }

  /**
   * A private chat's answer streams as a draft (or, where Telegram refused drafts, as one edited message at one edit a
   * second); a group's as one edited message sharing the group's pacer; a task's only as its final form.
   */
  private answerOf(pacer: Pacer): LiveAnswer {
    const { telegram, target, privateChat, interactive, replyToMessageId } = this.options;
    const edited = (interval: Pacer) =>
      new EditedAnswer(telegram, target, interval, {
        ...(replyToMessageId ? { replyToMessageId } : {}),
        firstAfterMs: FIRST_EDIT_AFTER_MS,
      });
    if (!interactive) return new FinalAnswer(telegram, target);
    if (!privateChat) return edited(pacer);
    const editsPerSecond = () => new Pacer({ minIntervalMs: 1000 });
    if (this.options.draftsRefused) return edited(editsPerSecond());
    return new DraftAnswer(telegram, target, pacer, () => {
      this.options.onDraftsRefused();
      return edited(editsPerSecond());
    });
  }

  /** Puts 👀 on the message being answered once the answer has kept the person waiting a moment (where configured). */
  private acknowledgeLater(): void {
    const { ackReaction, messageId, privateChat, telegram, target } = this.options;
    if (messageId === undefined || ackReaction === "off" || (ackReaction === "private" && !privateChat)) return;
    this.timers.push(
      setTimeout(() => {
        if (this.answer.visible) return;
        void bestEffort("acknowledging a message", () => telegram.setReaction(target, messageId, "👀"));
      }, ACK_AFTER_MS),
    );
  }
}
