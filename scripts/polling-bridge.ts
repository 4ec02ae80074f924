/**
 * Local development without a public URL: reads updates with `getUpdates` (long polling, the real bot token) and
 * forwards each to the local webhook with the secret header, as Telegram would. An update is forwarded until the
 * webhook takes it (2xx), and only then is the offset moved past it, so nothing is lost or forwarded twice.
 */
import { ALLOWED_UPDATES } from "../src/telegram/bot-commands.ts";

export interface BridgeOptions {
  apiBaseUrl: string;
  botToken: string;
  webhookUrl: string;
  webhookSecret: string;
  signal: AbortSignal;
  /** Long-poll timeout in seconds (Telegram holds the request open this long when there is nothing). */
  pollSeconds?: number;
  /** First wait after a failure; doubles up to 30 s. */
  retryDelayMs?: number;
  log?: (line: string) => void;
}

export class BridgeStopped extends Error {
  override readonly name = "BridgeStopped";
}

interface TelegramAnswer {
  ok: boolean;
  result?: { update_id: number }[];
  error_code?: number;
  description?: string;
}

export async function runPollingBridge(options: BridgeOptions): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(`[bridge] ${line}`));
  const pollSeconds = options.pollSeconds ?? 25;
  const firstDelay = options.retryDelayMs ?? 1000;
  let offset: number | undefined;
  let delay = firstDelay;

  while (!options.signal.aborted) {
    let answer: TelegramAnswer;
    try {
      const response = await fetch(`${options.apiBaseUrl}/bot${options.botToken}/getUpdates`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          timeout: pollSeconds,
          allowed_updates: [...ALLOWED_UPDATES],
          ...(offset !== undefined ? { offset } : {}),
        }),
        signal: options.signal,
      });
      answer = (await response.json()) as TelegramAnswer;
    } catch (error) {
      if (options.signal.aborted) return;
      log(`getUpdates failed (${error instanceof Error ? error.message : error}); retrying in ${delay} ms`);
      await wait(delay, options.signal);
      delay = Math.min(delay * 2, 30_000);
      continue;
    }
    if (!answer.ok) {
      if (answer.error_code === 409) {
        throw new BridgeStopped(
          "This bot has a webhook set, so getUpdates is refused. Run dev with --no-poll, or delete the webhook first.",
        );
      }
      if (answer.error_code === 401 || answer.error_code === 404)
        throw new BridgeStopped("Telegram refused the bot token (TELEGRAM_BOT_TOKEN).");
      log(`getUpdates answered ${answer.error_code} ${answer.description ?? ""}; retrying in ${delay} ms`);
      await wait(delay, options.signal);
      delay = Math.min(delay * 2, 30_000);
      continue;
    }
    delay = firstDelay;
    for (const update of answer.result ?? []) {
      if (!(await forward(update, options, log, firstDelay))) return;
      offset = update.update_id + 1;
    }
  }
}

/** Forwards one update until the webhook takes it; false when the bridge was stopped meanwhile. */
async function forward(
  update: { update_id: number },
  options: BridgeOptions,
  log: (line: string) => void,
  firstDelay: number,
): Promise<boolean> {
  let delay = firstDelay;
  while (!options.signal.aborted) {
    try {
      const response = await fetch(options.webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": options.webhookSecret },
        body: JSON.stringify(update),
        signal: options.signal,
      });
      if (response.ok) {
        log(`update ${update.update_id} forwarded`);
        return true;
      }
      // A 4xx other than 429 will not change by retrying (a bad update, a wrong secret): report it and move on.
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        log(`update ${update.update_id} refused by the webhook (${response.status} ${await response.text()}); skipped`);
        return true;
      }
      log(`webhook answered ${response.status}; retrying update ${update.update_id} in ${delay} ms`);
    } catch (error) {
      if (options.signal.aborted) return false;
      log(
        `webhook unreachable (${error instanceof Error ? error.message : error}); retrying update ${update.update_id} in ${delay} ms`,
      );
    }
    await wait(delay, options.signal);
    delay = Math.min(delay * 2, 30_000);
  }
  return false;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
