import { errorText } from "../lib/errors.ts";
import { redactSecrets } from "../lib/redact.ts";

/**
 * The chat's answers still on their way to Telegram. A turn whose answer text is final (and recorded) hands its
 * delivery over here: the drain goes on to the next batch, whose model call starts while that answer is sent, its
 * status line removed and its refusal (if any) recorded; whatever the chat shows next (the next turn's "typing…",
 * drafts and answer, a command's reply, a notice) waits for `settled` first, so the chat sees answers in the order
 * their turns ran. One chat's object owns one; the drain waits for it before its upkeep and its end.
 */
export class ReplyTail {
  private last: Promise<void> = Promise.resolve();
  private pending = 0;

  /** Whether a delivery handed over is still going. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /**
   * Every delivery handed over until now has ended (never rejects). Work that takes this promise before handing over
   * its own delivery waits only for the ones before it.
   */
  get settled(): Promise<void> {
    return this.last;
  }

  /**
   * Hands over a delivery: it runs after the ones handed over before it. It reports its own failures; one that
   * escapes is logged here, and the ones after it still run.
   */
  hold(delivery: () => Promise<void>): void {
    this.pending += 1;
    this.last = this.last.then(delivery).then(
      () => {
        this.pending -= 1;
      },
      (error: unknown) => {
        this.pending -= 1;
        console.error(`an answer's delivery failed: ${redactSecrets(errorText(error))}`);
      },
    );
  }
}
