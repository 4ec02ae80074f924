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

/**
 * Shows "typing…" on the display's clock until the clock stops. `landed` waits for a call still in flight, so that a
 * late typing action never lands after the answer (which would show "typing…" under it for five seconds).
 */
export class Typing {
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly telegram: Pick<TelegramClient, "sendTyping">,
    private readonly target: ChatTarget,
    private readonly clock: DisplayClock,
    /** While the invocation's subrequests are low, a renewal is skipped (the next one asks again). */
    private readonly allowance: SubrequestAllowance = UNMETERED,
  ) {
    clock.after(TYPING_AFTER_MS, () => this.send());
  }

  /** The last typing action asked for has been answered (or failed). */
  landed(): Promise<void> {
    return this.inFlight;
  }

  private send(): void {
    if (this.allowance.allowsCourtesy()) {
      this.inFlight = this.telegram.sendTyping(this.target).catch(() => {
        // Typing is a courtesy; a failure here must not fail the turn.
      });
    }
    this.clock.after(RENEW_MS, () => this.send());
  }
}
