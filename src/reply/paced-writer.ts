import { errorText } from "../lib/errors.ts";
import type { Pacer } from "./pacer.ts";

export interface PacedWriterOptions {
  pacer: Pacer;
  /** One paced call to Telegram. "again": schedule another one (more to show, or Telegram asked to wait). */
  write: () => Promise<"again" | "done">;
  /** The earliest time (epoch ms) a write may go, besides the pacer's: a streamed answer's first one waits a moment. */
  notBefore?: () => number;
  now?: () => number;
}

/**
 * The one way a streamed answer reaches Telegram: writes go one at a time (each waits for the one before, so an edit
 * never overtakes the message it edits), each in the pacer's next free slot, and none after `close`. Whoever has new
 * text calls `schedule`; the writer decides when the next call goes.
 */
export class PacedWriter {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: PacedWriterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Asks for a write at the next free slot (one is pending at most). */
  schedule(): void {
    if (this.timer !== undefined || this.closed) return;
    const at = Math.max(this.options.pacer.nextSlot(), this.options.notBefore?.() ?? 0);
    this.timer = setTimeout(() => this.flush(), Math.max(0, at - this.now()));
  }

  /** No write starts from now on; resolves once the one under way (if any) has landed. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed) return;
    this.chain = this.chain.then(async () => {
      if (this.closed) return;
      // Telegram may have asked to wait since this was scheduled.
      if (this.options.pacer.nextSlot() > this.now()) {
        this.schedule();
        return;
      }
      // The invocation's subrequests are low: this update is skipped; the final answer has their room.
      if (!this.options.pacer.mayGo()) return;
      if ((await this.options.write()) === "again") this.schedule();
    });
    // A write that throws is logged and the stream goes on (its next text is written in the next slot).
    this.chain = this.chain.catch((error: unknown) => console.warn(`a streamed update failed: ${errorText(error)}`));
  }
}
