/**
 * `npm run setup:telegram -- https://<your-worker>.workers.dev`: points Telegram at the deployed webhook, with the
 * secret header and the update kinds the bot handles, and registers the command list (`npm run deploy` does the same
 * after each deploy). Reads TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET from the environment or `.dev.vars`;
 * never prints them.
 */
import { describeSetup, registerBot, TelegramSetupError, WEBHOOK_SECRET_PATTERN } from "./deploy/telegram-setup.ts";
import { localVariables } from "./dev-vars.ts";

const variables = localVariables();
const token = variables.TELEGRAM_BOT_TOKEN;
const secret = variables.TELEGRAM_WEBHOOK_SECRET;
const apiBaseUrl = variables.TELEGRAM_API_BASE_URL ?? "https://api.telegram.org";
const workerUrl = process.argv[2];

if (!token || !secret || !workerUrl || !/^https:\/\//.test(workerUrl)) {
  console.error("Usage: npm run setup:telegram -- https://<your-worker>.workers.dev");
  console.error("with TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET in the environment or in .dev.vars.");
  console.error("Telegram only calls https webhooks; the secret may use A-Z, a-z, 0-9, _ and -, 32 to 256 characters.");
  process.exit(2);
}
if (!WEBHOOK_SECRET_PATTERN.test(secret)) {
  console.error(
    "TELEGRAM_WEBHOOK_SECRET must be 32 to 256 characters of A-Z, a-z, 0-9, _ and -" +
      " (e.g. `node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\"`).",
  );
  process.exit(2);
}

try {
  const setup = await registerBot({ token, secret, apiBaseUrl, workerUrl });
  for (const line of describeSetup(setup)) console.log(line);
} catch (error) {
  if (!(error instanceof TelegramSetupError)) throw error;
  console.error(error.message);
  process.exit(1);
}
