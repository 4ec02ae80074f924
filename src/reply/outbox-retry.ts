/** The first retry of a message Telegram could not take comes about this soon. */
const FIRST_RETRY_MS = 5_000;
/** Retries are never further apart than this: Telegram's outages last minutes, and nobody should wait much longer. */
const MAX_RETRY_MS = 5 * 60_000;
/** A try after Telegram's `retry_after` comes within this much after it, so that chats do not all return at once. */
const RETRY_AFTER_SPREAD_MS = 1_000;

/**
 * How long to wait before the next try after `attempts` tries failed (1 or more): exponential (5 s, 10 s, 20 s… up
 * to 5 minutes) with "equal jitter", half of it fixed and half random, so that the many chats an outage hit do not
 * all come back in the same second.
 */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const exponential = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

/**
 * When a message that just failed is tried next: after Telegram's `retry_after` when it gave one (it holds even a
 * try brought forward by a newer message: `holdUntil`), else after the backoff.
 */
export function nextTry(
  failure: { retryAfterSeconds?: number },
  attempts: number,
  now: number,
  random: () => number = Math.random,
): { nextTryAt: number; holdUntil?: number } {
  if (failure.retryAfterSeconds !== undefined && failure.retryAfterSeconds > 0) {
    const holdUntil = now + failure.retryAfterSeconds * 1000;
    return { nextTryAt: holdUntil + Math.round(random() * RETRY_AFTER_SPREAD_MS), holdUntil };
  }
  return { nextTryAt: now + retryDelayMs(attempts, random) };
}
