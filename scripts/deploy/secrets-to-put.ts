import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AccountSurvey } from "./account-survey.ts";
import { askSecret } from "./ask-secret.ts";
import { DeployError } from "./cloudflare-account.ts";
import {
  DEPLOYABLE_SECRETS,
  type DeploymentFile,
  type DeploySecret,
  devVarsOf,
  foundSecret,
  madeSecret,
} from "./deploy-secrets.ts";
import { checkToken, TelegramSetupError, WEBHOOK_SECRET_PATTERN } from "./telegram-setup.ts";
import { wrangler } from "./wrangler-cli.ts";

/** What the deploy knows of its secrets, and what it puts on the Worker. */
export interface SecretsPlan {
  /** What was decided, a line per secret (names and sources only). */
  lines: string[];
  /** The secrets to put now, by name. */
  toPut: Record<string, string>;
  /** The names of those. */
  names: string[];
  botToken: string;
  webhookSecret: string;
  /** What the deployment's file keeps for the next run. */
  keep: Record<string, string>;
  /** Where the owner finds the admin token (never the token). */
  adminTokenWhere: string;
}

const BOT_TOKEN = /^\d{5,}:[A-Za-z0-9_-]{30,}$/;

/**
 * The secrets of this deployment. Each is taken from the environment, the deployment's own file or `.dev.vars`, in
 * that order; the bot token is asked for when none has it (checked with Telegram before anything is deployed); the
 * webhook secret and the admin token are made when none has them. On an upgrade a secret the Worker has already is
 * put again only when it was given explicitly (the environment, typed); one the deploy would have to make is kept as
 * it is, except the webhook secret, which Telegram needs to be told (a new one is put and registered).
 */
export async function secretsToPut(input: {
  file: DeploymentFile;
  survey: AccountSurvey;
  devVarsPath: string;
}): Promise<SecretsPlan> {
  const sources = { environment: process.env, deployment: input.file.read(), devVars: devVarsOf(input.devVarsPath) };
  const has = new Set(input.survey.secretNames);
  const found = new Map<string, DeploySecret>();
  for (const name of DEPLOYABLE_SECRETS) {
    const secret = foundSecret(name, sources);
    if (secret) found.set(name, secret);
  }
  const botToken = found.get("TELEGRAM_BOT_TOKEN") ?? (await typedBotToken());
  const tokenCheck = await checkToken({
    token: botToken.value,
    apiBaseUrl: process.env.TELEGRAM_API_BASE_URL ?? "https://api.telegram.org",
  }).catch((error: unknown) => {
    if (error instanceof TelegramSetupError) throw new DeployError(`Telegram refused the bot token (${error.message})`);
    throw error;
  });
  found.set("TELEGRAM_BOT_TOKEN", botToken);

  const webhook = found.get("TELEGRAM_WEBHOOK_SECRET");
  if (webhook && !WEBHOOK_SECRET_PATTERN.test(webhook.value)) {
    throw new DeployError(
      `TELEGRAM_WEBHOOK_SECRET (${webhook.from}) must be 32 to 256 characters of A-Z, a-z, 0-9, _ and -`,
    );
  }
  if (!webhook)
    found.set("TELEGRAM_WEBHOOK_SECRET", { name: "TELEGRAM_WEBHOOK_SECRET", value: madeSecret(), from: "made now" });
  if (!found.has("ADMIN_TOKEN") && !has.has("ADMIN_TOKEN")) {
    found.set("ADMIN_TOKEN", { name: "ADMIN_TOKEN", value: madeSecret(), from: "made now" });
  }

  const toPut: Record<string, string> = {};
  const lines: string[] = [];
  for (const secret of found.values()) {
    const explicit = secret.from === "environment" || secret.from === "typed" || secret.from === "made now";
    if (has.has(secret.name) && !explicit) {
      lines.push(`${secret.name}: kept (the Worker has it)`);
      continue;
    }
    toPut[secret.name] = secret.value;
    lines.push(`${secret.name}: ${has.has(secret.name) ? "replaced" : "set"} (${secret.from})`);
  }
  for (const name of has) if (!found.has(name)) lines.push(`${name}: kept (the Worker has it)`);
  const hasModelKey = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"].some((name) => found.has(name) || has.has(name));
  if (!hasModelKey) {
    lines.push(
      "no OPENAI_API_KEY or ANTHROPIC_API_KEY: chats answer on Workers AI (no key needed); add one with `npx wrangler secret put OPENAI_API_KEY` or in .dev.vars before the next `npm run deploy`",
    );
  }
  if (tokenCheck.username) lines.unshift(`bot: @${tokenCheck.username}`);

  const keep: Record<string, string> = {};
  for (const name of ["TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET", "ADMIN_TOKEN"]) {
    const secret = found.get(name);
    if (secret) keep[name] = secret.value;
  }
  const admin = found.get("ADMIN_TOKEN");
  return {
    lines,
    toPut,
    names: Object.keys(toPut),
    botToken: botToken.value,
    webhookSecret: found.get("TELEGRAM_WEBHOOK_SECRET")?.value ?? "",
    keep,
    adminTokenWhere: admin
      ? `ADMIN_TOKEN in ${input.file.path}`
      : "the ADMIN_TOKEN the Worker already has (set a new one with `ADMIN_TOKEN=… npm run deploy`)",
  };
}

/** Asks for the bot token (a person types it once; a pipe gives it in CI and tests), until it looks like one. */
async function typedBotToken(): Promise<DeploySecret> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const typed = await askSecret("Telegram bot token (from @BotFather; not shown as you type): ");
    if (BOT_TOKEN.test(typed)) return { name: "TELEGRAM_BOT_TOKEN", value: typed, from: "typed" };
    console.error(typed === "" ? "  No token given." : "  That is not a bot token (it looks like 123456789:AA…).");
    if (!process.stdin.isTTY) break;
  }
  throw new DeployError(
    "a bot token is needed: create a bot with @BotFather, then run `npm run deploy` again (or set TELEGRAM_BOT_TOKEN)",
  );
}

/** Puts the secrets in one `wrangler secret bulk`, from a file only this user can read, removed afterwards. */
export async function putSecrets(root: string, configPath: string, secrets: Record<string, string>): Promise<void> {
  if (Object.keys(secrets).length === 0) return;
  const directory = mkdtempSync(join(tmpdir(), "deploy-secrets-"));
  const path = join(directory, "secrets.json");
  try {
    writeFileSync(path, JSON.stringify(secrets), { mode: 0o600 });
    const put = await wrangler(["secret", "bulk", path, "--config", configPath], { cwd: root });
    if (put.code !== 0) {
      // wrangler's words never hold a value; the names are ours.
      throw new DeployError(
        `the secrets (${Object.keys(secrets).join(", ")}) could not be put:\n${put.output.trim().split("\n").slice(-8).join("\n")}`,
      );
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
