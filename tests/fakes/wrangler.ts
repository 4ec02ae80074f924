import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The real wrangler against the fake Cloudflare API (scripts/cloudflare-api/), for tests of deploys: a temporary
 * directory for a copy of the project's wrangler.toml and for wrangler's own home (its login, logs and caches, so no
 * real login is ever read and the repository stays clean), and a runner that gives wrangler nothing of this process's
 * environment but PATH.
 */
export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WRANGLER_BIN = join(REPO_ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

export interface ConfigChanges {
  /**
   * "none": D1 and KV bindings without ids, as wrangler.toml has them and a first deploy provisions them (the R2
   * binding names its bucket); "placeholders": the all-zero ids earlier releases shipped; or the ids of existing
   * resources.
   */
  ids?: "none" | "placeholders" | { d1: string; kv: string };
  /** "remove" the [[containers]] entry, "keep" it (a Dockerfile, built by Docker), or use a registry image. */
  containers?: "remove" | "keep" | { image: string };
  /** Replaces the [vars] table (default: the project's own). */
  vars?: Record<string, string>;
}

/**
 * The project's wrangler.toml with its paths made absolute (so that it works from a temporary directory) and
 * changed as asked. Throws when the file no longer has what a change expects, so that the tests notice.
 */
export async function projectConfig(changes: ConfigChanges = {}): Promise<string> {
  let toml = await readFile(join(REPO_ROOT, "wrangler.toml"), "utf8");
  const replace = (pattern: RegExp | string, by: string) => {
    const next = toml.replace(pattern, by);
    if (next === toml) throw new Error(`wrangler.toml has no ${String(pattern)} any more`);
    toml = next;
  };
  replace(/^main = "(.+)"$/m, `main = "${join(REPO_ROOT, "src/worker.ts")}"`);
  replace(/^migrations_dir = "migrations"$/m, `migrations_dir = "${join(REPO_ROOT, "migrations")}"`);
  const ids =
    changes.ids === "placeholders"
      ? { d1: "00000000-0000-0000-0000-000000000000", kv: "00000000000000000000000000000000" }
      : changes.ids;
  if (typeof ids === "object") {
    replace(/^database_name = "(.+)"$/m, `database_name = "$1"\ndatabase_id = "${ids.d1}"`);
    replace(/^binding = "CONFIG"$/m, `binding = "CONFIG"\nid = "${ids.kv}"`);
  }
  const containers = changes.containers ?? "remove";
  if (containers === "remove") {
    replace(/\[\[containers\]\][\s\S]*?(?=\n\[(?!\[?containers))/, "");
  } else {
    const image = containers === "keep" ? join(REPO_ROOT, "container/Dockerfile") : containers.image;
    replace(/^image = "\.\/container\/Dockerfile"$/m, `image = ${JSON.stringify(image)}`);
    replace(
      /^image_build_context = "\."\n/m,
      containers === "keep" ? `image_build_context = ${JSON.stringify(REPO_ROOT)}\n` : "",
    );
  }
  if (changes.vars) {
    const table = Object.entries(changes.vars)
      .map(([name, value]) => `${name} = ${JSON.stringify(value)}`)
      .join("\n");
    replace(/^\[vars\]\n[\s\S]*?(?=\n\[)/m, `[vars]\n${table}\n`);
  }
  if (/"\.\.?\//.test(toml)) throw new Error("wrangler.toml has a relative path the test copy does not rewrite");
  return toml;
}

/** A directory for config copies and wrangler's home, removed by `remove()`. */
export interface WranglerPlace {
  dir: string;
  /** Writes a file into the directory and returns its path. */
  write(name: string, text: string | Uint8Array): Promise<string>;
  remove(): Promise<void>;
}

export async function wranglerPlace(): Promise<WranglerPlace> {
  const dir = await mkdtemp(join(tmpdir(), "cf-fake-"));
  await mkdir(join(dir, "home", ".config"), { recursive: true });
  return {
    dir,
    write: async (name, text) => {
      const path = join(dir, name);
      await mkdir(join(path, ".."), { recursive: true });
      await writeFile(path, text);
      return path;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface WranglerRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, in no particular interleaving. */
  output: string;
}

export interface WranglerOptions {
  place: WranglerPlace;
  /** The fake's API base (`api.url`). */
  apiUrl: string;
  accountId: string;
  /** CLOUDFLARE_API_TOKEN; undefined to leave it unset (wrangler then uses a login in its home, if any). */
  token: string | undefined;
  /** Written to wrangler's stdin (a secret's value). */
  stdin?: string;
  env?: Record<string, string>;
}

/** Runs `wrangler <args>` from the repository's root, as `npx wrangler` would; never throws on a non-zero exit. */
export function runWrangler(args: string[], options: WranglerOptions): Promise<WranglerRun> {
  const home = join(options.place.dir, "home");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    WRANGLER_CACHE_DIR: join(home, "cache"),
    WRANGLER_SEND_METRICS: "false",
    CI: "true",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    CLOUDFLARE_API_BASE_URL: options.apiUrl,
    CLOUDFLARE_ACCOUNT_ID: options.accountId,
    ...(options.token === undefined ? {} : { CLOUDFLARE_API_TOKEN: options.token }),
    ...options.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER_BIN, ...args], { cwd: REPO_ROOT, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr, output: stdout + stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}
