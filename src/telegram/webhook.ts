import type { Context } from "hono";
import { secretsEqual } from "../config/secrets.ts";
import { settingsOf } from "../config/settings.ts";
import type { Env } from "../env.ts";
import { HttpError } from "../http-error.ts";
import { describeIssues } from "../tools/registry.ts";
import { isAddressedToBot, isChatAllowed, withoutBotSuffix } from "./access.ts";
import { botIdentity } from "./bot-identity.ts";
import { TelegramClient } from "./client.ts";
import { incomingMessageOf, sessionKeyOf, updateSchema } from "./update.ts";

const MAX_BODY_BYTES = 1_000_000;

/**
 * `POST /telegram/webhook`: checks the secret header, validates the update, applies the access rules and queues the
 * message in its chat's object. Answers as soon as the update is durably queued; no model call happens here.
 */
export async function handleWebhook(c: Context<{ Bindings: Env }>): Promise<Response> {
  const settings = settingsOf(c.env);
  if (!settings.webhookSecret) {
    throw new HttpError(
      503,
      "webhook_not_configured",
      "TELEGRAM_WEBHOOK_SECRET is not set; the webhook refuses every call.",
    );
  }
  const presented = c.req.header("x-telegram-bot-api-secret-token");
  if (presented === undefined || !(await secretsEqual(presented, settings.webhookSecret))) {
    throw new HttpError(401, "unauthorized", "Missing or wrong X-Telegram-Bot-Api-Secret-Token.");
  }

  const length = Number(c.req.header("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) throw new HttpError(413, "too_large", "The update is larger than 1 MB.");
  const body = await c.req.text();
  if (body.length > MAX_BODY_BYTES) throw new HttpError(413, "too_large", "The update is larger than 1 MB.");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new HttpError(400, "invalid_json", "The body is not JSON.", undefined, { cause: error });
  }
  const parsed = updateSchema.safeParse(json);
  if (!parsed.success)
    throw new HttpError(400, "invalid_update", `Not a Telegram update: ${describeIssues(parsed.error)}`);

  let message = incomingMessageOf(parsed.data);
  if (!message) return c.json({ ok: true, ignored: "update kind not handled" });

  if (message.chat.type !== "private") {
    const identity = await botIdentity(settings.botToken ?? "", telegramFor(c.env), c.env.CONFIG);
    if (!isAddressedToBot(message, parsed.data.message!, identity))
      return c.json({ ok: true, ignored: "not addressed to the bot" });
  }
  message = withoutBotSuffix(message);
  const access = isChatAllowed(settings, message.chat.id) ? "allowed" : "stranger";
  const target = { chatId: message.chat.id, ...(message.threadId !== undefined ? { threadId: message.threadId } : {}) };
  const session = c.env.CHAT_SESSION.get(c.env.CHAT_SESSION.idFromName(sessionKeyOf(target)));
  const result = await session.enqueue(message, access);
  return c.json({ ok: true, result });
}

const clients = new WeakMap<Env, TelegramClient>();

function telegramFor(env: Env): TelegramClient {
  let client = clients.get(env);
  if (!client) {
    const settings = settingsOf(env);
    if (!settings.botToken) throw new HttpError(503, "bot_token_missing", "TELEGRAM_BOT_TOKEN is not set.");
    client = new TelegramClient({ botToken: settings.botToken, apiBaseUrl: settings.telegramApiBaseUrl });
    clients.set(env, client);
  }
  return client;
}
