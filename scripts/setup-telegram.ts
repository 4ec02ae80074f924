/**
 * `npm run setup:telegram -- https://<your-worker>.workers.dev`: points Telegram at the deployed webhook, with the
 * secret header and the update kinds the bot handles, and registers the command list. Reads TELEGRAM_BOT_TOKEN and
 * TELEGRAM_WEBHOOK_SECRET from the environment or `.dev.vars`; never prints them.
 */
import { setupCodeOf } from "../src/access/setup-code.ts";
import { ALLOWED_UPDATES, BOT_COMMANDS } from "../src/telegram/bot-commands.ts";
import { localVariables } from "./dev-vars.ts";

const variables = localVariables();
const token = variables.TELEGRAM_BOT_TOKEN;
const secret = variables.TELEGRAM_WEBHOOK_SECRET;
const apiBaseUrl = (variables.TELEGRAM_API_BASE_URL ?? "https://api.telegram.org").replace(/\/+$/, "");
const baseUrl = process.argv[2];

if (!token || !secret || !baseUrl || !/^https:\/\//.test(baseUrl)) {
  console.error("Usage: npm run setup:telegram -- https://<your-worker>.workers.dev");
  console.error("with TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET in the environment or in .dev.vars.");
  console.error("Telegram only calls https webhooks; the secret may use A-Z, a-z, 0-9, _ and -, 32 to 256 characters.");
  process.exit(2);
}
// Telegram accepts one character; a secret that short could be guessed, and the webhook trusts whoever knows it.
if (!/^[A-Za-z0-9_-]{32,256}$/.test(secret)) {
  console.error(
    "TELEGRAM_WEBHOOK_SECRET must be 32 to 256 characters of A-Z, a-z, 0-9, _ and -" +
      " (e.g. `node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\"`).",
  );
  process.exit(2);
}

async function call(method: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${apiBaseUrl}/bot${token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { ok: boolean; result?: unknown; description?: string };
  if (!answer.ok) throw new Error(`${method}: ${answer.description ?? response.status}`);
  return answer.result;
}

const webhookUrl = `${baseUrl.replace(/\/+$/, "")}/telegram/webhook`;
await call("setWebhook", {
  url: webhookUrl,
  secret_token: secret,
  allowed_updates: [...ALLOWED_UPDATES],
  max_connections: 40,
});
await call("setMyCommands", { commands: BOT_COMMANDS.map(({ command, description }) => ({ command, description })) });
const info = (await call("getWebhookInfo", {})) as {
  url: string;
  pending_update_count: number;
  last_error_message?: string;
};
console.log(`Webhook set: ${info.url || webhookUrl} (${info.pending_update_count ?? 0} pending updates)`);
if (info.last_error_message) console.log(`Telegram's last delivery error: ${info.last_error_message}`);
console.log(`Commands registered: ${BOT_COMMANDS.map(({ command }) => `/${command}`).join(" ")}`);
// Guest mode (Bot API 10.0) is switched on for a bot in @BotFather; getMe says whether it is.
const me = (await call("getMe", {})) as { username?: string; supports_guest_queries?: boolean };
console.log(
  me.supports_guest_queries
    ? `Guest mode: on (people GUEST_MODE allows can summon @${me.username} in other chats)`
    : "Guest mode: off for this bot (turn it on in @BotFather to let people summon it in chats it is not in)",
);
// Derived from the secret, not the secret: it makes the first private chat to send it the bot's owner, and only
// while the bot has no admin (ADMIN_USER_IDS empty and nobody paired as owner yet).
console.log(
  `Owner setup code: ${await setupCodeOf(secret)} (send "/pair <code>" to the bot from your private chat;` +
    " it works only while the bot has no admin)",
);
