/**
 * `npm run dev`: applies the D1 migrations to the local database, starts `wrangler dev` (local D1, KV and Durable
 * Objects), and, unless `--no-poll` is given or no bot token is set, runs the polling bridge so the bot answers
 * your real Telegram messages without a public URL. Other arguments go to wrangler (e.g. `--port 8788`).
 * Remote bindings are off (`--local`): the Workers AI binding would need a Cloudflare login, so `workers-ai` reaches
 * Workers AI through WORKERS_AI_BASE_URL and WORKERS_AI_API_TOKEN in dev; `--remote-ai` uses the binding instead.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { localVariables } from "./dev-vars.ts";
import { BridgeStopped, runPollingBridge } from "./polling-bridge.ts";

const args = process.argv.slice(2);
const poll = !args.includes("--no-poll");
const remoteAi = args.includes("--remote-ai");
const wranglerArgs = args.filter((arg) => arg !== "--no-poll" && arg !== "--remote-ai");
if (!remoteAi) wranglerArgs.push("--local");
const portIndex = wranglerArgs.indexOf("--port");
const port = portIndex >= 0 ? Number(wranglerArgs[portIndex + 1]) : 8787;
if (portIndex < 0) wranglerArgs.push("--port", String(port));

function run(command: string, commandArgs: string[], options: { env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  return spawn(command, commandArgs, {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ...options.env },
  });
}

const migrate = run("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local"], { env: { CI: "true" } });
const migrated = await new Promise<number>((resolve) => migrate.on("exit", (code) => resolve(code ?? 1)));
if (migrated !== 0) {
  console.error("Applying the D1 migrations to the local database failed.");
  process.exit(migrated);
}

const wrangler = spawn("npx", ["wrangler", "dev", ...wranglerArgs], {
  stdio: "inherit",
  env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" },
});
const stop = new AbortController();
const shutdown = () => {
  stop.abort();
  wrangler.kill("SIGINT");
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
wrangler.on("exit", (code) => {
  stop.abort();
  process.exit(code ?? 0);
});

const variables = localVariables();
if (poll && variables.TELEGRAM_BOT_TOKEN && variables.TELEGRAM_WEBHOOK_SECRET) {
  const local = `http://127.0.0.1:${port}`;
  await waitForHealth(local, stop.signal);
  console.log("[bridge] polling Telegram for updates and forwarding them to the local webhook (--no-poll to turn off)");
  runPollingBridge({
    apiBaseUrl: (variables.TELEGRAM_API_BASE_URL ?? "https://api.telegram.org").replace(/\/+$/, ""),
    botToken: variables.TELEGRAM_BOT_TOKEN,
    webhookUrl: `${local}/telegram/webhook`,
    webhookSecret: variables.TELEGRAM_WEBHOOK_SECRET,
    signal: stop.signal,
  }).catch((error: unknown) => {
    console.error(`[bridge] stopped: ${error instanceof BridgeStopped ? error.message : String(error)}`);
  });
} else if (poll) {
  console.log(
    "[bridge] not polling: set TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET in .dev.vars to talk to the bot from Telegram",
  );
}

async function waitForHealth(base: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
