import { setupCodeOf } from "../../src/access/setup-code.ts";
import { ALLOWED_UPDATES, BOT_COMMANDS } from "../../src/telegram/bot-commands.ts";

/** A Bot API call that Telegram refused, in its words (never the token). */
export class TelegramSetupError extends Error {
  override readonly name = "TelegramSetupError";
}

/** What Telegram says of the bot after set-up. */
export interface TelegramSetup {
  webhookUrl: string;
  pendingUpdates: number;
  lastError: string | undefined;
  username: string | undefined;
  guestMode: boolean;
  commands: string[];
  setupCode: string;
}

/** The Bot API's answer envelope. */
interface Answer {
  ok: boolean;
  result?: unknown;
  description?: string;
}

/** Calls the Bot API; a refusal throws with Telegram's description. The token stays inside. */
export function botApi(options: { token: string; apiBaseUrl: string }) {
  const base = options.apiBaseUrl.replace(/\/+$/, "");
  return async (method: string, body: unknown): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${base}/bot${options.token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch {
      throw new TelegramSetupError(`${method}: Telegram's Bot API could not be reached (${new URL(base).host})`);
    }
    const answer = (await response.json().catch(() => ({ ok: false }))) as Answer;
    if (!answer.ok) throw new TelegramSetupError(`${method}: ${answer.description ?? `HTTP ${response.status}`}`);
    return answer.result;
  };
}

/** Checks a token with getMe before anything is deployed: a typo is told at once, in Telegram's words. */
export async function checkToken(options: { token: string; apiBaseUrl: string }): Promise<{ username?: string }> {
  return (await botApi(options)("getMe", {})) as { username?: string };
}

/**
 * Points Telegram at the webhook (with the secret, the update kinds the bot handles and 40 connections) and registers
 * the command list. Returns Telegram's view of it and the owner's setup code (derived from the secret, never the
 * secret itself).
 */
export async function registerBot(options: {
  token: string;
  secret: string;
  apiBaseUrl: string;
  workerUrl: string;
}): Promise<TelegramSetup> {
  const call = botApi(options);
  const webhookUrl = `${options.workerUrl.replace(/\/+$/, "")}/telegram/webhook`;
  await call("setWebhook", {
    url: webhookUrl,
    secret_token: options.secret,
    allowed_updates: [...ALLOWED_UPDATES],
    max_connections: 40,
  });
  await call("setMyCommands", { commands: BOT_COMMANDS.map(({ command, description }) => ({ command, description })) });
  const info = (await call("getWebhookInfo", {})) as {
    url: string;
    pending_update_count?: number;
    last_error_message?: string;
  };
  // Guest mode (Bot API 10.0) is switched on for a bot in @BotFather; getMe says whether it is.
  const me = (await call("getMe", {})) as { username?: string; supports_guest_queries?: boolean };
  return {
    webhookUrl: info.url || webhookUrl,
    pendingUpdates: info.pending_update_count ?? 0,
    lastError: info.last_error_message,
    username: me.username,
    guestMode: me.supports_guest_queries === true,
    commands: BOT_COMMANDS.map(({ command }) => `/${command}`),
    setupCode: await setupCodeOf(options.secret),
  };
}

/** What set-up did, as lines for a person (no token, no secret). */
export function describeSetup(setup: TelegramSetup): string[] {
  return [
    `Webhook set: ${setup.webhookUrl} (${setup.pendingUpdates} pending updates)`,
    ...(setup.lastError ? [`Telegram's last delivery error: ${setup.lastError}`] : []),
    `Commands registered: ${setup.commands.join(" ")}`,
    setup.guestMode
      ? `Guest mode: on (people GUEST_MODE allows can summon @${setup.username} in other chats)`
      : "Guest mode: off for this bot (turn it on in @BotFather to let people summon it in chats it is not in)",
    `Owner setup code: ${setup.setupCode} (send "/pair ${setup.setupCode}" to the bot from your private chat;` +
      " it works only while the bot has no admin)",
  ];
}

/** Telegram takes a 1-256 character secret; a short one could be guessed, and the webhook trusts whoever knows it. */
export const WEBHOOK_SECRET_PATTERN = /^[A-Za-z0-9_-]{32,256}$/;
