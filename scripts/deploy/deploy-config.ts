import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { parse, stringify } from "smol-toml";

/** What a deploy runs with: the account's plan and what it has switched on, and what this machine can build. */
export interface DeployChoices {
  plan: "free" | "paid";
  /** R2 is switched on for the account: the MEDIA bucket is deployed. */
  r2: boolean;
  /**
   * The agent container: off, built from container/Dockerfile (Workers Paid, and a Docker engine here), or an image
   * already in a registry (`--agent-image`; no Docker needed).
   */
  containers: { kind: "off" } | { kind: "build" } | { kind: "image"; image: string };
  /** The id of a KV namespace a failed first deploy left behind, to use instead of creating it again. */
  kvId?: string;
  /** Another name for the Worker than wrangler.toml's. */
  name?: string;
}

type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * wrangler.toml as this deploy needs it, written beside the deployment's file: `WORKERS_PLAN` set, the container left
 * out where the plan or the machine cannot run it, the MEDIA bucket left out on an account without R2. Paths are
 * made relative to where the file is written, so wrangler finds the code, the migrations and the Dockerfile.
 * wrangler.toml itself is never changed: `npx wrangler deploy` keeps deploying it as it is.
 */
export function writeDeployConfig(options: { root: string; out: string; choices: DeployChoices }): string {
  const config = parse(readFileSync(join(options.root, "wrangler.toml"), "utf8"));
  const { choices } = options;
  const vars = isTable(config.vars) ? config.vars : {};
  config.vars = { ...vars, WORKERS_PLAN: choices.plan };
  if (choices.name !== undefined) config.name = choices.name;
  // wrangler.toml declares Workers AI as an "unsafe" binding so that `wrangler dev` never needs a login; a deploy
  // uploads the same binding from wrangler's own [ai] table, without the warning.
  const unsafe = isTable(config.unsafe) ? config.unsafe : undefined;
  const bindings = Array.isArray(unsafe?.bindings) ? unsafe.bindings : [];
  const ai = bindings.find((binding) => isTable(binding) && binding.type === "ai");
  if (unsafe && isTable(ai) && typeof ai.name === "string") {
    config.ai = { binding: ai.name };
    unsafe.bindings = bindings.filter((binding) => binding !== ai);
    if ((unsafe.bindings as unknown[]).length === 0) delete config.unsafe;
  }
  if (choices.containers.kind === "off") delete config.containers;
  if (!choices.r2) delete config.r2_buckets;
  if (choices.kvId !== undefined) {
    for (const namespace of Array.isArray(config.kv_namespaces) ? config.kv_namespaces : []) {
      if (isTable(namespace) && namespace.binding === "CONFIG") namespace.id = choices.kvId;
    }
  }

  const outDirectory = dirname(resolve(options.root, options.out));
  const moved = (path: string) =>
    isAbsolute(path) ? path : relative(outDirectory, resolve(options.root, path)).replaceAll("\\", "/") || ".";
  if (typeof config.main === "string") config.main = moved(config.main);
  for (const database of Array.isArray(config.d1_databases) ? config.d1_databases : []) {
    if (isTable(database) && typeof database.migrations_dir === "string")
      database.migrations_dir = moved(database.migrations_dir);
  }
  for (const container of Array.isArray(config.containers) ? config.containers : []) {
    if (!isTable(container)) continue;
    if (choices.containers.kind === "image") {
      container.image = choices.containers.image;
      delete container.image_build_context;
      continue;
    }
    if (typeof container.image === "string" && container.image.startsWith("."))
      container.image = moved(container.image);
    if (typeof container.image_build_context === "string")
      container.image_build_context = moved(container.image_build_context);
  }
  if (isTable(config.alias)) {
    for (const [name, target] of Object.entries(config.alias)) {
      if (typeof target === "string" && target.startsWith(".")) config.alias[name] = moved(target);
    }
  }
  mkdirSync(outDirectory, { recursive: true });
  const header =
    "# Written by npm run deploy from wrangler.toml for this deployment's plan; do not edit (edit wrangler.toml).\n";
  writeFileSync(resolve(options.root, options.out), header + stringify(config));
  return resolve(options.root, options.out);
}
