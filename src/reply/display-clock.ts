import { errorText } from "../lib/errors.ts";

/**
 * What a turn's display does later ("typing…" and its renewals, the Stop button, the 👀), on one timer set for the
 * earliest of them. A turn that ends quickly sets one timer and clears it, not one per courtesy: each timer is a
 * call into the runtime and an entry on its timer heap, a part of every plain turn's CPU.
 */
export class DisplayClock {
  /** Ordered by when each is due; equal times keep the order they were asked for. */
  private readonly due: { at: number; run: () => void }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(private readonly now: () => number = Date.now) {}

  /** Runs `run` in `ms` milliseconds, unless the clock stops first. */
  after(ms: number, run: () => void): void {
    if (this.stopped) return;
    const at = this.now() + ms;
    let index = this.due.findIndex((entry) => entry.at > at);
    if (index < 0) index = this.due.length;
    this.due.splice(index, 0, { at, run });
    if (index === 0) this.arm();
  }

  /** Nothing more runs. */
  stop(): void {
    this.stopped = true;
    this.due.length = 0;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    const first = this.due[0];
    this.timer = first === undefined ? undefined : setTimeout(() => this.fire(), Math.max(0, first.at - this.now()));
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.now();
    for (let first = this.due[0]; first !== undefined && first.at <= now; first = this.due[0]) {
      this.due.shift();
      try {
        first.run();
      } catch (error) {
        // One courtesy failing must not stop the others (each had a timer of its own before).
        console.warn(`a turn's display failed at a timer: ${errorText(error)}`);
      }
      if (this.stopped) return;
    }
    if (this.timer === undefined) this.arm();
  }
}
