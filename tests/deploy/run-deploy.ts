import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export interface DeployRun {
  code: number;
  output: string;
}

/**
 * `npm run deploy` in a clone, as a person runs it after `npx wrangler login` (here: the fake's token in the
 * environment), with `typed` written to its stdin (the bot token, when it asks). Telegram is the fake's; there is no
 * Docker engine (WRANGLER_DOCKER_BIN points nowhere); wrangler's home is the clone's own, so no real login is read.
 */
export function runDeploy(options: {
  cwd: string;
  apiUrl: string;
  token: string;
  accountId: string;
  telegramUrl: string;
  args?: string[];
  typed?: string;
  env?: Record<string, string>;
}): Promise<DeployRun> {
  const home = join(options.cwd, ".home");
  mkdirSync(join(home, ".config"), { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    WRANGLER_CACHE_DIR: join(home, "cache"),
    WRANGLER_SEND_METRICS: "false",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    CLOUDFLARE_API_BASE_URL: options.apiUrl,
    CLOUDFLARE_API_TOKEN: options.token,
    CLOUDFLARE_ACCOUNT_ID: options.accountId,
    TELEGRAM_API_BASE_URL: options.telegramUrl,
    WRANGLER_DOCKER_BIN: join(options.cwd, "no-docker-here"),
    ...options.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "deploy", "--", ...(options.args ?? [])], { cwd: options.cwd, env });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
    child.stdin.end(options.typed === undefined ? "" : `${options.typed}\n`);
  });
}
