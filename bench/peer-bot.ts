import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Bot } from "./bot.ts";

/** The bot token both bots are given; the fake Telegram answers any. */
const TOKEN = "123456:BENCH";

/**
 * Another Telegram bot's Worker, under `wrangler dev --local` like this one, its upstreams pointed at the same fakes:
 * TBXark/ChatGPT-Telegram-Workers (the most used Telegram LLM bot on Workers), given as its checkout's directory and
 * run from its built `dist/index.js` with a wrangler.toml written here (its KV binding, its variables). It is data on
 * this machine, never part of this repository. Its options: everyone allowed, OpenAI at the fake, STREAM_MODE off
 * (with streaming it edits its message as the answer grows; without, it still sends "..." at once and edits the answer
 * into it, with "typing" between: three Bot API calls an answer, the edit read as the answer).
 */
export async function startPeerBot(fakesUrl: string, directory: string): Promise<Bot> {
  const main = resolve(directory, "dist/index.js");
  if (!existsSync(main))
    throw new Error(`${main} is missing: --peer takes a checkout of TBXark/ChatGPT-Telegram-Workers`);
  const work = mkdtempSync(join(tmpdir(), "bench-peer-"));
  writeFileSync(
    join(work, "wrangler.toml"),
    [
      'name = "bench-peer"',
      `main = ${JSON.stringify(main)}`,
      'compatibility_date = "2024-11-11"',
      'compatibility_flags = ["nodejs_compat"]',
      'kv_namespaces = [{ binding = "DATABASE", id = "bench-peer-kv" }]',
    ].join("\n"),
  );
  const vars: Record<string, string> = {
    TELEGRAM_AVAILABLE_TOKENS: TOKEN,
    TELEGRAM_API_DOMAIN: `${fakesUrl}/telegram`,
    OPENAI_API_KEY: "bench-key",
    OPENAI_API_BASE: `${fakesUrl}/openai/v1`,
    OPENAI_CHAT_MODEL: "gpt-bench",
    AI_PROVIDER: "openai",
    I_AM_A_GENEROUS_PERSON: "true",
    STREAM_MODE: "false",
  };
  const port = await freePort();
  // This project's wrangler, run in the peer's generated directory (npx would look for one there).
  const child = spawn(
    process.execPath,
    [
      resolve("node_modules/wrangler/bin/wrangler.js"),
      "dev",
      "--local",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      join(work, "state"),
      "--log-level",
      "warn",
      "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    {
      cwd: work,
      env: {
        ...process.env,
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        WRANGLER_SEND_METRICS: "false",
        X_LOCAL_OBSERVABILITY: "false",
      },
      stdio: ["ignore", "ignore", "inherit"],
      detached: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    const exited = new Promise((done) => child.once("exit", done));
    if (child.pid) signalGroup(child.pid, "SIGTERM");
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
    if (child.exitCode === null && child.pid) signalGroup(child.pid, "SIGKILL");
    rmSync(work, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      // Its index page: the Worker is up.
      if ((await fetch(`${url}/`)).status < 500) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error("the peer's wrangler dev did not start");
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return {
    url,
    secret: "",
    adminToken: "",
    processGroup: child.pid ?? 0,
    webhookPath: `/telegram/${TOKEN}/webhook`,
    stop,
  };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // gone
  }
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no port"))));
    });
  });
}
