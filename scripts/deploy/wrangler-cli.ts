import { spawn } from "node:child_process";
import { join } from "node:path";

/** What a wrangler command did: its exit code and its output (stdout and stderr, in order of arrival). */
export interface WranglerResult {
  code: number;
  stdout: string;
  output: string;
}

/**
 * Runs the project's own wrangler (node_modules) with this process's Node and environment, so that
 * CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_BASE_URL reach it as a person set them. `show`
 * passes its output through as it comes (a deploy's progress); otherwise it is kept and shown only on a failure.
 */
export function wrangler(
  args: string[],
  options: { cwd: string; show?: boolean; interactive?: boolean },
): Promise<WranglerResult> {
  const bin = join(options.cwd, "node_modules", "wrangler", "bin", "wrangler.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: process.env.WRANGLER_SEND_METRICS ?? "false" },
      stdio: options.interactive ? "inherit" : ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      stdout += text;
      output += text;
      if (options.show) process.stdout.write(indented(text));
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      if (options.show) process.stderr.write(indented(text));
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, output }));
  });
}

function indented(text: string): string {
  return text.replace(/^(?=.)/gm, "  │ ");
}

/** The JSON a `--json` command printed (wrangler may print a banner line before it). */
export function jsonOutput(stdout: string): unknown {
  const start = stdout.search(/^[[{]/m);
  if (start < 0) return undefined;
  try {
    return JSON.parse(stdout.slice(start));
  } catch {
    return undefined;
  }
}
