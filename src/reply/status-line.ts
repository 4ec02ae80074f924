import type { Buttons, TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import type { StepView } from "./live-answer.ts";
import type { Pacer } from "./pacer.ts";

/** A status line changes at most this often, whatever the pacer allows. */
const MIN_EDIT_INTERVAL_MS = 2000;

/**
 * One status message per turn, separate from the answer (where the answer cannot hold it: the plain path, and tasks): the current step (the latest tool), created on the first
 * step, edited in place; once the turn has run a few seconds it carries a Stop button; when the answer starts
 * streaming it collapses to one line; at the end it is deleted. Calls are chained, so an edit never overtakes the
 * message it edits, and paced with the answer's. Failures here never fail the turn.
 */
export class StatusLine implements StepView {
  private messageId: number | undefined;
  private shownText = "";
  private shownButtons = false;
  private text: string | undefined;
  /** The answer is streaming: the status changes no more (the answer's updates need the chat's paced slots). */
  private quiet = false;
  private showsSteps = false;
  private buttons: Buttons = [];
  private chain: Promise<void> = Promise.resolve();
  private lastShownAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
    private readonly pacer: Pacer,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current step. */
  show(text: string): void {
    this.text = text;
    this.showsSteps = true;
    this.quiet = false;
    this.schedule();
  }

  /** Offers a Stop button whose press sends `data` back; a status message appears now if there is none. */
  offerStop(data: string): void {
    this.buttons = [{ text: "⏹ Stop", data }];
    this.text ??= this.quiet ? "✍️ Writing…" : "⏳ Working…";
    this.schedule(true);
  }

  /** The answer is streaming: shown steps collapse to one line, and the status is left alone from then on. */
  writing(): void {
    if (this.quiet) return;
    this.quiet = true;
    if (!this.showsSteps) return;
    this.showsSteps = false;
    this.text = "✍️ Writing…";
    this.schedule(true);
  }

  /** Stops updates and waits for those under way; returns the status message's id, if one was sent. */
  async close(): Promise<number | undefined> {
    this.closed = true;
    this.pacer.release();
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
    return this.messageId;
  }

  private schedule(collapsing = false): void {
    if (this.closed || this.timer !== undefined || (this.quiet && !collapsing)) return;
    this.pacer.reserve();
    const wait = Math.max(this.lastShownAt + MIN_EDIT_INTERVAL_MS, this.pacer.nextSlot(true)) - this.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    const text = this.text;
    // Nothing to show, or the invocation's subrequests are low (the next step or the close tries again).
    if (text === undefined || this.closed || !this.pacer.mayGo()) {
      this.pacer.release();
      return;
    }
    // Telegram may have asked to wait since this was scheduled.
    if (this.pacer.nextSlot(true) > this.now()) {
      this.schedule();
      return;
    }
    const withButtons = this.buttons.length > 0;
    if (text === this.shownText && withButtons === this.shownButtons) {
      this.pacer.release();
      return;
    }
    this.lastShownAt = this.now();
    this.pacer.used();
    this.chain = this.chain.then(async () => {
      const result =
        this.messageId === undefined
          ? await this.telegram.sendQuick(this.target, text, { buttons: this.buttons })
          : await this.telegram.editQuick(this.target, this.messageId, text, this.buttons);
      if (result.kind === "ok") {
        if (typeof result.value === "number") this.messageId = result.value;
        this.shownText = text;
        this.shownButtons = withButtons;
      } else if (result.kind === "wait") {
        this.pacer.backOff(result.seconds);
        this.schedule();
      } else if (result.kind === "refused" || result.kind === "unavailable") {
        console.warn(`chat ${this.target.chatId}: status line update failed (${result.description})`);
      }
    });
  }
}
