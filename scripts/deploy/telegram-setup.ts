import { setupCodeOf } from "../../src/access/setup-code.ts";
import { ALLOWED_UPDATES, BOT_COMMANDS } from "../../src/telegram/bot-commands.ts";

/** A Bot API call that Telegram refused, in its words (never the token). */
export class TelegramSetupError extends Error {
  override readonly name = "TelegramSetupError";
}

/** What Telegram says of the bot after set-up. */
export interface TelegramSetup {
  /** What setMySettings asked for (Bot API 10.5), and whether Telegram took it. */
  settings: { applied: boolean; note?: string };
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
function botApi(options: { token: string; apiBaseUrl: string }) {
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
  // Bot API 10.5: what @BotFather's switches used to set. A server without the method (an older local Bot API
  // server) leaves them as they are, and says so; nothing else depends on them.
  const settings = await call("setMySettings", BOT_SETTINGS).then(
    () => ({ applied: true }),
    (error: unknown) => ({ applied: false, note: error instanceof Error ? error.message : String(error) }),
  );
  const info = (await call("getWebhookInfo", {})) as {
    url: string;
    pending_update_count?: number;
    last_error_message?: string;
  };
  // Guest mode (Bot API 10.0) is switched on for a bot in @BotFather; getMe says whether it is.
  const me = (await call("getMe", {})) as { username?: string; supports_guest_queries?: boolean };
  return {
    settings,
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
    setup.settings.applied
      ? "Bot settings: joins groups, privacy mode on (reads what it is mentioned, replied or commanded in), guest queries on, inline mode off"
      : `Bot settings left as they are (${setup.settings.note ?? "setMySettings failed"})`,
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

/**
 * The bot's settings (setMySettings, Bot API 10.5): it is added to groups and answers there when mentioned, replied to
 * or commanded (privacy mode on: it never reads the rest of a group); it can be summoned as a guest (GUEST_MODE
 * decides whom it answers); it has no inline mode; callbacks keep their message (the default mode).
 */
export const BOT_SETTINGS = {
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_guest_queries: true,
  supports_inline_queries: false,
} as const;

/** Telegram takes a 1-256 character secret; a short one could be guessed, and the webhook trusts whoever knows it. */
export const WEBHOOK_SECRET_PATTERN = /^[A-Za-z0-9_-]{32,256}$/;
