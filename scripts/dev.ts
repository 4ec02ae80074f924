/**
 * `npm run dev`: applies the D1 migrations to the local database, starts `wrangler dev` (local D1, KV and Durable
 * Objects), and then either
 * - with a bot token in `.dev.vars`: runs the polling bridge (unless `--no-poll`), so the bot answers your real
 *   Telegram messages without a public URL; or
 * - without one (or with `--playground`): starts a local stand-in for the Bot API and opens the console's
 *   playground, a chat page where you play Telegram's part.
 * Without a model key either (no OPENAI_API_KEY, ANTHROPIC_API_KEY or WORKERS_AI_BASE_URL with its token), it also
 * starts a local stand-in model (scripts/stand-in-model/) and points the bot at it, so that a fresh clone shows the
 * whole pipeline; every answer says it is a stand-in and how to add a key. `--stand-in` uses it even with a key.
 * Without a search backend (no SEARXNG_URL, BRAVE_SEARCH_API_KEY or TAVILY_API_KEY, and WEB_SEARCH empty), it starts
 * a local stand-in search (scripts/stand-in-search/) that plays a SearXNG instance and serves the pages its results
 * point to, so that `web_search` and `web_fetch` can be tried; every result's title ends in "(stand-in search)".
 * Other arguments go to wrangler (e.g. `--port 8788`). Remote bindings are off (`--local`); the Workers AI binding
 * does not exist in dev anyway (see wrangler.toml), so `workers-ai` uses WORKERS_AI_BASE_URL and its token here.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  hasModelKey,
  hasSearchBackend,
  localVariables,
  standInModelVars,
  standInSearchVars,
  unset,
} from "./dev-vars.ts";
import { PLAYGROUND_CHAT, PLAYGROUND_FAMILY_CHAT, startBotApiStandIn } from "./playground/bot-api.ts";
import { BridgeStopped, runPollingBridge } from "./polling-bridge.ts";
import { STAND_IN_MODEL } from "./stand-in-model/replies.ts";
import { startStandInModel } from "./stand-in-model/server.ts";
import { startStandInSearch } from "./stand-in-search/server.ts";

const args = process.argv.slice(2);
const poll = !args.includes("--no-poll");
const ownFlags = new Set(["--no-poll", "--playground", "--stand-in"]);
const wranglerArgs = args.filter((arg) => !ownFlags.has(arg));
wranglerArgs.push("--local");
const portIndex = wranglerArgs.indexOf("--port");
const port = portIndex >= 0 ? Number(wranglerArgs[portIndex + 1]) : 8787;
if (portIndex < 0) wranglerArgs.push("--port", String(port));

const variables = localVariables();
const playground = args.includes("--playground") || unset(variables.TELEGRAM_BOT_TOKEN);
const local = `http://127.0.0.1:${port}`;
let playgroundAdminToken: string | undefined;
let standIn: Awaited<ReturnType<typeof startBotApiStandIn>> | undefined;
if (playground) {
  const botToken = "100000:PLAYGROUND";
  const webhookSecret = randomBytes(24).toString("hex");
  standIn = await startBotApiStandIn({ botToken, webhookUrl: `${local}/telegram/webhook`, webhookSecret });
  const withPlaygroundChat = (list: string | undefined) =>
    [list?.trim(), String(PLAYGROUND_CHAT.id)].filter(Boolean).join(",");
  // A token made for this run only, when .dev.vars has none: the console needs one to sign in.
  if (unset(variables.ADMIN_TOKEN)) playgroundAdminToken = randomBytes(24).toString("hex");
  const vars: Record<string, string> = {
    TELEGRAM_BOT_TOKEN: botToken,
    TELEGRAM_WEBHOOK_SECRET: webhookSecret,
    TELEGRAM_API_BASE_URL: standIn.url,
    PLAYGROUND_URL: standIn.url,
    // You, in the playground, may talk to the bot and are its admin (/model buttons, /approve).
    // The family group too: the bot is a member there (the people's memory is tried in it).
    ALLOWED_CHAT_IDS:
      variables.ALLOWED_CHAT_IDS?.trim() === "*"
        ? "*"
        : `${withPlaygroundChat(variables.ALLOWED_CHAT_IDS)},${PLAYGROUND_FAMILY_CHAT.id}`,
    ADMIN_USER_IDS: withPlaygroundChat(variables.ADMIN_USER_IDS),
    ADMIN_CHAT_IDS: withPlaygroundChat(variables.ADMIN_CHAT_IDS),
    ...(playgroundAdminToken ? { ADMIN_TOKEN: playgroundAdminToken } : {}),
  };
  wranglerArgs.push(...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]));
  // The console's playground is built only into this dev bundle, not the deployed one (wrangler.toml's [define]).
  wranglerArgs.push("--define", "WITH_PLAYGROUND:true");
}

// No model at all: a local stand-in answers, so that the pipeline can be tried before any key is at hand.
const hasModel = hasModelKey(variables);
let standInModel: Awaited<ReturnType<typeof startStandInModel>> | undefined;
if (!hasModel || args.includes("--stand-in")) {
  standInModel = await startStandInModel();
  const vars = standInModelVars(standInModel.url, STAND_IN_MODEL);
  wranglerArgs.push(...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]));
}

// No search backend: a local stand-in plays SearXNG, so that web_search and web_fetch can be tried without a key.
let standInSearch: Awaited<ReturnType<typeof startStandInSearch>> | undefined;
if (!hasSearchBackend(variables)) {
  standInSearch = await startStandInSearch();
  const vars = standInSearchVars(standInSearch, variables);
  wranglerArgs.push(...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]));
}

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
  void standIn?.close();
  void standInModel?.close();
  void standInSearch?.close();
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
wrangler.on("exit", (code) => {
  stop.abort();
  process.exit(code ?? 0);
});

if (standInModel) {
  await waitForHealth(local, stop.signal);
  console.log(
    [
      "",
      `[model] ${hasModel ? "--stand-in:" : "no model key in .dev.vars:"} a local stand-in model answers (${standInModel.url}).`,
      "[model] It is not an AI; it shows the pipeline (streaming, tools, tables, voice). For real answers put",
      "[model] OPENAI_API_KEY=… (or ANTHROPIC_API_KEY=… with DEFAULT_PROVIDER=anthropic) in .dev.vars and restart.",
      "",
    ].join("\n"),
  );
}

if (standInSearch) {
  await waitForHealth(local, stop.signal);
  console.log(
    [
      "",
      `[search] no search backend in .dev.vars: web_search asks a local stand-in search (${standInSearch.url}).`,
      "[search] It knows a few pages on this machine, each titled “… (stand-in search)”; it is not the web. For real",
      "[search] results put SEARXNG_URL=…, BRAVE_SEARCH_API_KEY=… or TAVILY_API_KEY=… in .dev.vars (WEB_SEARCH=off: none).",
      "",
    ].join("\n"),
  );
}

if (playground) {
  await waitForHealth(local, stop.signal);
  console.log(
    [
      "",
      `[playground] no bot token: the Bot API is played locally (${standIn?.url}). Chat with the bot at`,
      `[playground]   ${local}/console/playground`,
      playgroundAdminToken
        ? `[playground] signing in with this run's admin token: ${playgroundAdminToken} (set ADMIN_TOKEN in .dev.vars to choose your own)`
        : "[playground] signing in with the ADMIN_TOKEN from .dev.vars",
      "",
    ].join("\n"),
  );
} else if (poll && variables.TELEGRAM_BOT_TOKEN && variables.TELEGRAM_WEBHOOK_SECRET) {
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
