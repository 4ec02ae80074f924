import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";

/** The variables in `.dev.vars` (the file wrangler dev reads secrets from), overridden by the process environment. */
export function localVariables(path = ".dev.vars"): Record<string, string | undefined> {
  const fromFile = existsSync(path) ? parseEnv(readFileSync(path, "utf8")) : {};
  return { ...fromFile, ...process.env };
}
