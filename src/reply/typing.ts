import type { TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";

/** Telegram shows "typing…" for five seconds; renew it a little sooner while a turn runs. */
const RENEW_MS = 4500;

/**
 * Shows "typing…" until stopped. `stop` waits for a call still in flight, so that a late typing action never lands
 * after the answer (which would show "typing…" under it for five seconds).
 */
export function startTyping(telegram: TelegramClient, target: ChatTarget): { stop: () => Promise<void> } {
  let inFlight: Promise<void> = Promise.resolve();
  const send = () => {
    inFlight = telegram.sendTyping(target).catch(() => {
      // Typing is a courtesy; a failure here must not fail the turn.
    });
  };
  send();
  const timer = setInterval(send, RENEW_MS);
  return {
    stop: async () => {
      clearInterval(timer);
      await inFlight;
    },
  };
}
