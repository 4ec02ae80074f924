import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { parse, stringify } from "smol-toml";

/** What a deploy runs with: the account's plan and what it has switched on, and what this machine can build. */
export interface DeployChoices {
  plan: "free" | "paid";
  /** R2 is switched on for the account: the MEDIA bucket is deployed. */
  r2: boolean;
  /** The agent container is deployed (Workers Paid, and a Docker engine here to build its image). */
  containers: boolean;
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
  if (!choices.containers) delete config.containers;
  if (!choices.r2) delete config.r2_buckets;

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
    if (typeof container.image === "string" && container.image.startsWith(".")) container.image = moved(container.image);
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
