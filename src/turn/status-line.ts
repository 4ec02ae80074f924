import type { TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/update.ts";

const MIN_EDIT_INTERVAL_MS = 2000;

/**
 * One status message per turn that shows the current step (the latest tool), created on the first step and edited
 * in place at most once every two seconds; at the end the answer replaces it. Telegram calls are chained so an edit
 * never overtakes the message it edits. Failures here never fail the turn.
 */
export class StatusLine {
  private messageId: number | undefined;
  private chain: Promise<void> = Promise.resolve();
  private lastShownAt = 0;
  private pending: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
    private readonly now: () => number = Date.now,
  ) {}

  get shown(): boolean {
    return this.messageId !== undefined;
  }

  show(text: string): void {
    if (this.closed) return;
    this.pending = text;
    const wait = this.lastShownAt + MIN_EDIT_INTERVAL_MS - this.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  }

  /** Stops updates and waits for those under way; returns the status message's id, if one was sent. */
  async close(): Promise<number | undefined> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
    return this.messageId;
  }

  private flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.pending;
    this.pending = undefined;
    if (text === undefined || this.closed) return;
    this.lastShownAt = this.now();
    this.chain = this.chain.then(async () => {
      try {
        if (this.messageId === undefined) {
          const [id] = await this.telegram.sendPlain(this.target, text);
          this.messageId = id;
        } else {
          await this.telegram.editMarkdown(this.target, this.messageId, text);
        }
      } catch (error) {
        console.warn("status line update failed", error instanceof Error ? error.message : error);
      }
    });
  }
}
