import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { stringify } from "smol-toml";
import type { Binding } from "../../scripts/cloudflare-api/accounts.ts";
import type { CloudflareApi } from "../../scripts/cloudflare-api/server.ts";

/** A Worker the fake Cloudflare holds, running in the local runtime (workerd through `wrangler dev --local`). */
export interface LocalWorker {
  url: string;
  /** The uploaded bindings' variables and secrets, by name (what the Worker reads). */
  variables: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Writes what was uploaded (its modules as they are, no bundling) and a config made from the upload's metadata — its
 * compatibility date and flags, its Durable Object classes, D1, KV, R2 and rate-limit bindings, its variables and
 * secrets — and runs it locally with D1's migrations applied. `overrides` are variables the local run needs that a
 * deploy does not set (where Telegram is: the fake's). The AI binding is left out: it needs Cloudflare.
 */
export async function runUploaded(options: {
  api: CloudflareApi;
  accountId: string;
  worker: string;
  dir: string;
  migrationsDir: string;
  overrides: Record<string, string>;
}): Promise<LocalWorker> {
  const script = options.api.state.script(options.accountId, options.worker);
  const version = script?.versions.at(-1);
  if (!version) throw new Error(`the fake holds no upload of ${options.worker}`);
  const root = join(options.dir, "uploaded");
  for (const module of version.modules) {
    const path = join(root, module.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, module.bytes);
  }
  // The version's own bindings: secrets with their values (the API never shows those).
  const raw = version.bindings;
  const variables = Object.fromEntries(
    raw
      .filter((binding) => binding.type === "plain_text" || binding.type === "secret_text")
      .map((binding) => [binding.name, String(binding.text ?? "")]),
  );
  const of = (type: string) => raw.filter((binding: Binding) => binding.type === type);
  const classes = of("durable_object_namespace").map((binding) => String(binding.class_name));
  const config = {
    name: `${options.worker}-local`,
    main: version.mainModule,
    compatibility_date: version.compatibilityDate,
    compatibility_flags: version.compatibilityFlags,
    no_bundle: true,
    rules: [{ type: "ESModule", globs: ["**/*.js", "**/*.mjs"] }],
    vars: { ...variables, ...options.overrides },
    durable_objects: {
      bindings: of("durable_object_namespace").map((b) => ({ name: b.name, class_name: b.class_name })),
    },
    migrations: [{ tag: "v1", new_sqlite_classes: [...new Set(classes)] }],
    d1_databases: of("d1").map((b) => ({
      binding: b.name,
      database_name: "uploaded",
      database_id: String(b.id),
      migrations_dir: options.migrationsDir,
    })),
    kv_namespaces: of("kv_namespace").map((b) => ({ binding: b.name, id: String(b.namespace_id) })),
    r2_buckets: of("r2_bucket").map((b) => ({ binding: b.name, bucket_name: String(b.bucket_name) })),
    ratelimits: of("ratelimit").map((b) => ({ name: b.name, namespace_id: String(b.namespace_id), simple: b.simple })),
    dev: { enable_containers: false },
  };
  const configPath = join(root, "wrangler.toml");
  writeFileSync(configPath, stringify(config));
  const state = join(options.dir, "state");
  const wrangler = join(process.cwd(), "node_modules", "wrangler", "bin", "wrangler.js");
  const env = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", X_LOCAL_OBSERVABILITY: "false" };
  const migrated = spawnSync(
    process.execPath,
    [wrangler, "d1", "migrations", "apply", "DB", "--local", "--persist-to", state, "--config", configPath],
    { env, encoding: "utf8" },
  );
  if (migrated.status !== 0) throw new Error(`local D1 migrations failed: ${migrated.stderr}`);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [wrangler, "dev", "--local", "--config", configPath, "--port", String(port), "--ip", "127.0.0.1"].concat([
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      "--log-level",
      "warn",
    ]),
    { env, stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log += chunk.toString("utf8");
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the uploaded Worker did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    variables,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    },
  };
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
