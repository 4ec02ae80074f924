import type { Transformer } from "./bot-api.ts";

export interface RetryOptions {
  /** Retries per call, for 429 and 5xx answers. */
  maxAttempts: number;
  /** A 429 asking for a longer wait than this fails instead of holding the turn. */
  maxRetryAfterSeconds: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * An API transformer (bot-api.ts): a 429 is retried after Telegram's `retry_after`, a 5xx after a short backoff (0.5 s,
 * 1 s, 2 s). The grammY auto-retry plugin does the same for grammY (and requires its Node build, which does not belong in
 * a Worker); this is the few lines of it the bot needs.
 */
export function retryTransformer(options: RetryOptions): Transformer {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return async (previous, method, payload, signal) => {
    for (let attempt = 0; ; attempt++) {
      const result = await previous(method, payload, signal);
      if (result.ok || attempt >= options.maxAttempts) return result;
      const retryAfter = result.parameters?.retry_after;
      if (result.error_code === 429 && retryAfter !== undefined && retryAfter <= options.maxRetryAfterSeconds) {
        await sleep(retryAfter * 1000);
      } else if (result.error_code >= 500) {
        await sleep(500 * 2 ** attempt);
      } else {
        return result;
      }
    }
  };
}
