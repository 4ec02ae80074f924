import type { SubrequestAllowance } from "../lib/subrequest-meter.ts";

export interface PacerOptions {
  /** At least this long between two calls. */
  minIntervalMs: number;
  /** At most this many calls in any 60 seconds (groups: Telegram allows about 20 a minute). */
  perMinute?: number;
  /** The invocation's subrequests: while they run low, streamed calls (courtesies) do not go at all. */
  allowance?: SubrequestAllowance;
  now?: () => number;
}

/**
 * When a turn's next streamed call to a chat may go: no sooner than the interval after the last one, within the
 * per-minute cap, and not before a `retry_after` Telegram asked for has passed. The answer and the status line of a
 * turn share one pacer, so together they stay within the chat's limits.
 */
export class Pacer {
  private last = Number.NEGATIVE_INFINITY;
  private blockedUntil = 0;
  /** Someone asked for the next slot: the others wait one interval longer. */
  private reserved = false;
  private readonly recent: number[] = [];
  private readonly now: () => number;

  constructor(private readonly options: PacerOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Claims the next slot for a rare, important update (the status line and its Stop button), so that a steady
   * stream of answer edits cannot keep taking every slot before it.
   */
  reserve(): void {
    this.reserved = true;
  }

  /** The reservation is not needed after all. */
  release(): void {
    this.reserved = false;
  }

  /** The earliest time (epoch ms) the next call may go; `reserved` for the caller that reserved it. */
  nextSlot(reserved = false): number {
    const now = this.now();
    while (this.recent.length > 0 && this.recent[0]! <= now - 60_000) this.recent.shift();
    const byCap =
      this.options.perMinute !== undefined && this.recent.length >= this.options.perMinute
        ? this.recent[0]! + 60_000
        : 0;
    const free = Math.max(now, this.last + this.options.minIntervalMs, this.blockedUntil, byCap);
    return this.reserved && !reserved ? free + this.options.minIntervalMs : free;
  }

  /**
   * Whether a streamed call may go at all: not while the invocation's subrequests are low (what is left is the
   * answer's). A call that may not is skipped, not delayed: the next change asks again.
   */
  mayGo(): boolean {
    return this.options.allowance?.allowsCourtesy() ?? true;
  }

  /** How long Telegram asked to wait, from now (0 when it did not). */
  waitRequiredMs(): number {
    return Math.max(0, this.blockedUntil - this.now());
  }

  /** A call goes now. */
  used(): void {
    this.reserved = false;
    this.last = this.now();
    this.recent.push(this.last);
  }

  /** Telegram answered 429 with `retry_after`. */
  backOff(seconds: number): void {
    this.blockedUntil = Math.max(this.blockedUntil, this.now() + seconds * 1000);
  }
}
