/**
 * The agent runner: `node container/server.ts`. Environment: `PORT` (8080; 0 picks a free one), `HOST` (127.0.0.1;
 * 0.0.0.0 in the image), `RUNNER_TOKEN` (if set, the bearer token `POST /run` wants), `WORKSPACE_ROOT`
 * (./workspace, /workspace in the image) and what the Claude Code CLI itself reads
 * (`ANTHROPIC_API_KEY`, optionally `ANTHROPIC_BASE_URL`, `CLAUDE_CONFIG_DIR`, `CLAUDE_CODE_MAX_RETRIES`…).
 * Prints `[runner] listening on http://<host>:<port>` once it accepts requests. SIGTERM / SIGINT cancel the running
 * queries (each stream ends with a `cancelled` error) and exit with 0.
 */
import path from "node:path";
import { createRunner } from "./app.ts";

const port = parsePort(process.env.PORT);
// Loopback unless told otherwise: the runner runs shell commands for its callers.
const host = process.env.HOST || "127.0.0.1";
const token = process.env.RUNNER_TOKEN || undefined;
const workspaceRoot = path.resolve(process.env.WORKSPACE_ROOT || "./workspace");

const runner = createRunner({ workspaceRoot, ...(token ? { token } : {}) });
runner.server.on("error", (error) => {
  console.error(`[runner] server error: ${error.message}`);
  process.exit(1);
});
runner.server.listen(port, host, () => {
  const address = runner.server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  console.log(`[runner] listening on http://${host}:${actual} (workspace ${workspaceRoot})`);
});

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`[runner] ${signal} received`);
    // Whatever happens, the process is gone within a few seconds.
    setTimeout(() => process.exit(0), 8_000).unref();
    runner.shutdown().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  });
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === "") return 8080;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) {
    console.error(`[runner] PORT must be a port number, not ${JSON.stringify(value)}`);
    process.exit(1);
  }
  return parsed;
}
