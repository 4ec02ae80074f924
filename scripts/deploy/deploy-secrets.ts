import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseEnv } from "node:util";
import { SETTINGS_SCHEMA } from "../../src/config/settings-schema.ts";
import { unset } from "../dev-vars.ts";

/** A secret the deploy puts on the Worker, and where its value came from (never the value, in anything printed). */
export interface DeploySecret {
  name: string;
  value: string;
  from: "environment" | "this deployment's file" | ".dev.vars" | "typed" | "made now";
}

/** Secrets only `npm run dev` uses: never deployed. */
const DEV_ONLY = new Set(["AGENT_RUNNER_TOKEN"]);

/** The secrets of the schema a deploy may carry over from the environment, the deployment's file or .dev.vars. */
export const DEPLOYABLE_SECRETS = Object.entries(SETTINGS_SCHEMA)
  .filter(([name, knob]) => knob.kind === "secret" && !DEV_ONLY.has(name))
  .map(([name]) => name);

/**
 * Where one deployment's own secrets are kept between runs, so that running `npm run deploy` again (an upgrade)
 * types nothing: the bot token typed once, the webhook secret and the admin token made the first time. One file per
 * account and Worker name, readable by its owner only, git-ignored (`.deploy/`).
 */
export class DeploymentFile {
  readonly path: string;

  constructor(options: { accountId: string; workerName: string; root?: string }) {
    this.path = `${options.root ?? ".deploy"}/${options.accountId}/${options.workerName}.vars`;
  }

  read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    const parsed = parseEnv(readFileSync(this.path, "utf8"));
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  write(values: Record<string, string>): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const lines = Object.entries(values)
      .sort(([left], [right]) => left.localeCompare(right))
      .map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    writeFileSync(
      this.path,
      `# Written by npm run deploy: this deployment's secrets. Keep it private; it is git-ignored.\n${lines.join("\n")}\n`,
      { mode: 0o600 },
    );
    chmodSync(this.path, 0o600);
  }
}

/** 32 random bytes as 64 hex characters: a webhook secret Telegram takes, an admin token long enough. */
export function madeSecret(): string {
  return randomBytes(32).toString("hex");
}

/** The first set value of `name` among the sources, in order, with where it was found. */
export function foundSecret(
  name: string,
  sources: { environment: NodeJS.ProcessEnv; deployment: Record<string, string>; devVars: Record<string, string> },
): DeploySecret | undefined {
  const candidates: [DeploySecret["from"], string | undefined][] = [
    ["environment", sources.environment[name]],
    ["this deployment's file", sources.deployment[name]],
    [".dev.vars", sources.devVars[name]],
  ];
  for (const [from, value] of candidates) {
    if (value !== undefined && !unset(value)) return { name, value: value.trim(), from };
  }
  return undefined;
}

/** `.dev.vars`, when there is one. */
export function devVarsOf(path = ".dev.vars"): Record<string, string> {
  if (!existsSync(path)) return {};
  const parsed = parseEnv(readFileSync(path, "utf8"));
  return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
