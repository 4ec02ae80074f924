import { type SubrequestAllowance, UNMETERED } from "../lib/subrequest-meter.ts";
import type { TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import type { DisplayClock } from "./display-clock.ts";

/**
 * "typing…" starts once the answer has kept someone waiting this long: an answer that comes sooner shows itself,
 * and the typing action before it would be a Bot API call per turn that nobody sees (Telegram clears "typing…" when
 * the message lands). A model's first token takes longer than this, so a person waiting for one still sees it.
 */
export const TYPING_AFTER_MS = 250;
/** Telegram shows "typing…" for five seconds; renew it a little sooner while a turn runs. */
const RENEW_MS = 4500;

export interface TypingOptions {
  telegram: Pick<TelegramClient, "sendTyping">;
  target: ChatTarget;
  clock: DisplayClock;
  /** While the invocation's subrequests are low, a renewal is skipped (the next one asks again). */
  allowance?: SubrequestAllowance;
  /**
   * When "typing…" last went out for this turn, in an attempt that started over (a message joined it): it still
   * shows, so the first action waits for its renewal instead of going again at once.
   */
  shownAt?: number;
  now?: () => number;
}

/**
 * Shows "typing…" on the display's clock until the clock stops. `landed` waits for a call still in flight, so that a
 * late typing action never lands after the answer (which would show "typing…" under it for five seconds).
 */
export class Typing {
  private inFlight: Promise<void> = Promise.resolve();
  private sentAt: number | undefined;
  private readonly allowance: SubrequestAllowance;
  private readonly now: () => number;

  constructor(private readonly options: TypingOptions) {
    this.allowance = options.allowance ?? UNMETERED;
    this.now = options.now ?? Date.now;
    const { shownAt } = options;
    this.sentAt = shownAt;
    const first = shownAt === undefined ? TYPING_AFTER_MS : Math.max(TYPING_AFTER_MS, shownAt + RENEW_MS - this.now());
    options.clock.after(first, () => this.send());
  }

  /** The last typing action asked for has been answered (or failed). */
  landed(): Promise<void> {
    return this.inFlight;
  }

  /** When "typing…" last went out (for an attempt that starts over: see TypingOptions.shownAt). */
  get lastSentAt(): number | undefined {
    return this.sentAt;
  }

  private send(): void {
    if (this.allowance.allowsCourtesy()) {
      this.sentAt = this.now();
      this.inFlight = this.options.telegram.sendTyping(this.options.target).catch(() => {
        // Typing is a courtesy; a failure here must not fail the turn.
      });
    }
    this.options.clock.after(RENEW_MS, () => this.send());
  }
}
