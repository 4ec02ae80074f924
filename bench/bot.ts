import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, type WriteStream } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LIMITS_KNOBS } from "../src/config/knobs/limits-knobs.ts";

export interface Bot {
  url: string;
  secret: string;
  /** The admin API's token (a chat's config is set through it). */
  adminToken: string;
  /** The process group of `wrangler dev` and its workerd. */
  processGroup: number;
  /**
   * How long after a chat's turn the bot may still work for that chat: this bot writes a chat's usage and directory
   * row to D1 in one batch USAGE_FLUSH_SECONDS after its first turn. None for a bot that does all its work at once.
   */
  deferredWorkMs?: number;
  /** Where Telegram's updates go (another bot's path, bench/peer-bot.ts); default `/telegram/webhook`. */
  webhookPath?: string;
  stop(): Promise<void>;
}

const SECRET = "bench-webhook-secret";

/**
 * `wrangler dev` on a free port with fresh local storage, its upstreams pointed at the fakes (the benchmark's, and the
 * browser tests' with their own `vars`).
 */
export async function startBot(
  fakesUrl: string,
  options: {
    inspectorPort?: number;
    minify?: boolean;
    vars?: Record<string, string>;
    /** AGENT_CALLBACK_URL pointed at this Worker itself (a runner outside calls its tools back there). */
    callbackToSelf?: boolean;
    /** Another checkout of the project to run (an A/B against an older commit); default: this one. */
    checkout?: string;
    /** A different entry module than wrangler.toml's `main` (the benchmark's counting wrapper), relative to the checkout. */
    entry?: string;
    /**
     * Where the runtime's own output goes (what the Worker logs: a failed drain, a refused send), appended under a
     * line naming the run; by default nowhere.
     */
    logFile?: string;
    /**
     * Local storage to run on and keep (an upgrade fixture's copy: tests/node/upgrade.test.ts); by default a fresh
     * directory, removed when the bot stops. The D1 migrations are applied to it either way.
     */
    state?: string;
  } = {},
): Promise<Bot> {
  const state = options.state ?? mkdtempSync(join(stateRoot(), "bench-state-"));
  const port = await freePort();
  const callback: Record<string, string> = options.callbackToSelf
    ? { AGENT_CALLBACK_URL: `http://127.0.0.1:${port}` }
    : {};
  const vars: Record<string, string> = {
    TELEGRAM_BOT_TOKEN: "123456:BENCH",
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_BASE_URL: `${fakesUrl}/telegram`,
    OPENAI_API_KEY: "bench-key",
    OPENAI_BASE_URL: `${fakesUrl}/openai/v1`,
    ANTHROPIC_API_KEY: "bench-key",
    ANTHROPIC_BASE_URL: `${fakesUrl}/anthropic`,
    ALLOWED_CHAT_IDS: "*",
    DEFAULT_PROVIDER: "openai",
    DEFAULT_MODEL: "gpt-bench",
    // The history scenario stores 10,000 messages; the default pruning would keep 400.
    HISTORY_MAX_STORED: "20000",
    ADMIN_TOKEN: "bench-admin-token-0123456789abcdef0123",
    ...options.vars,
    ...callback,
  };
  const cwd = options.checkout ?? process.cwd();
  const migrate = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", state], {
    cwd,
    env: { ...process.env, CI: "true" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (migrate.status !== 0) throw new Error("applying the D1 migrations failed");

  const log = options.logFile ? appendLog(options.logFile, options.checkout) : undefined;
  const child = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      ...(options.entry ? [options.entry] : []),
      // No remote bindings (the Workers AI binding would need a Cloudflare login).
      "--local",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--log-level",
      "warn",
      "--show-interactive-dev-session=false",
      ...(options.inspectorPort ? ["--inspector-port", String(options.inspectorPort)] : []),
      ...(options.minify === false ? ["--minify=false"] : []),
      // The console's playground is built only into a dev bundle that is asked for it (wrangler.toml's [define]).
      ...(vars.PLAYGROUND_URL ? ["--define", "WITH_PLAYGROUND:true"] : []),
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    {
      cwd,
      // X_LOCAL_OBSERVABILITY: wrangler's local Workers Logs (on unless this says false) adds a streaming tail worker
      // to every request and event and stores what it sends in a local SQLite, on the runtime's one thread. A deployed
      // Worker's logs are collected outside its isolate, so the benchmark leaves it out: with it, the paced acks' p99
      // was 1.1-1.8 × /health's; without, 0.8-1.0 × (2026-11-24, `--only ack`, 3 runs each).
      env: {
        ...process.env,
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        WRANGLER_SEND_METRICS: "false",
        X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
      },
      // The Worker's console goes to wrangler's stderr: shown here as before, and kept in the log with its stdout.
      stdio: ["ignore", log ? "pipe" : "ignore", log ? "pipe" : "inherit"],
      detached: true,
    },
  );
  if (log) {
    child.stdout?.pipe(log, { end: false });
    child.stderr?.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      log.write(chunk);
    });
    // "close", not "exit": the pipes may still hold output when the process exits, and a write after end throws.
    child.once("close", () => log.end());
  }
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      // Nothing of it is left running (a workerd that came up without its Worker answering).
      if (child.pid) signalGroup(child.pid, "SIGKILL");
      throw new Error("wrangler dev did not start");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    secret: SECRET,
    adminToken: vars.ADMIN_TOKEN!,
    deferredWorkMs: Number(vars.USAGE_FLUSH_SECONDS ?? LIMITS_KNOBS.USAGE_FLUSH_SECONDS.fallback) * 1000,
    processGroup: child.pid ?? 0,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      // The whole process group: npx, wrangler and workerd. Kept storage gets Ctrl-C's SIGINT, as a person stops it.
      if (child.pid) signalGroup(child.pid, options.state ? "SIGINT" : "SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null && child.pid) signalGroup(child.pid, "SIGKILL");
      if (options.state) {
        // Kept storage is read next (saved as a fixture, or removed): nothing of the group may still write to it.
        if (child.pid && !(await groupGone(child.pid, 5000))) {
          signalGroup(child.pid, "SIGKILL");
          await groupGone(child.pid, 5000);
        }
      } else {
        rmSync(state, { recursive: true, force: true });
      }
    },
  };
}

/** Sends a signal to a process group; one that is gone already is not an error. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // gone
  }
}

/** Whether every process of the group has exited within `timeoutMs`. */
async function groupGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pid, 0);
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** The bundle `wrangler dev` is running (wrangler removes it when it stops): what a profile's line numbers refer to. */
export function newestDevBundle(root = ".wrangler/tmp"): string | undefined {
  const bundles = readdirSync(root)
    .filter((name) => name.startsWith("dev-"))
    .map((name) => `${root}/${name}/worker.js`)
    .filter((path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    })
    .sort((left, right) => statSync(right).mtimeMs - statSync(left).mtimeMs);
  return bundles[0];
}

/**
 * Where the local runtime keeps its storage: a RAM disk when the machine has one. On this machine's virtual disk the
 * local SQLite's syncs were sampled as CPU under `exec` (half of a plain turn's sampled figure: 35 ms on disk against
 * 15 ms on /dev/shm, same code, minutes apart), and a deployed Durable Object's SQLite does not sync to a disk in the
 * isolate's thread. BENCH_STATE_DIR chooses another place.
 */
function stateRoot(): string {
  const chosen = process.env.BENCH_STATE_DIR;
  if (chosen) return chosen;
  try {
    if (statSync("/dev/shm").isDirectory()) return "/dev/shm";
  } catch {
    // no RAM disk here
  }
  return tmpdir();
}

/** The log file opened for appending, under a line saying which run (and which checkout) follows. */
function appendLog(file: string, checkout: string | undefined): WriteStream {
  mkdirSync(dirname(file), { recursive: true });
  const stream = createWriteStream(file, { flags: "a" });
  stream.write(`--- wrangler dev started ${new Date().toISOString()}${checkout ? ` (${checkout})` : ""}\n`);
  return stream;
}
