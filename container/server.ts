/**
 * The agent runner: `node container/server.ts`. Environment:
 * - `RUNNER_TOKEN` (required): the bearer token `POST /run` wants. The runner refuses to start without one.
 * - `PORT` (8080; 0 picks a free one), `HOST` (127.0.0.1; 0.0.0.0 in the image), `WORKSPACE_ROOT` (./workspace,
 *   /workspace in the image), `RUNNER_ALLOWED_HOSTS` (comma-separated Host names accepted besides loopback ones).
 * - Model access, one of:
 *   - `RUNNER_MODEL_PROXY=worker` (the container): `ANTHROPIC_BASE_URL` (claude-agent) and `OPENAI_BASE_URL`
 *     (codex-agent, the `/v1` root) are the Worker's model proxies; the CLI presents each run's token there. The
 *     runner holds no key.
 *   - otherwise (a runner started by hand): `ANTHROPIC_API_KEY` (claude-agent) and/or `OPENAI_API_KEY` (codex-agent),
 *     at least one, and optionally `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, are the real APIs'; the runner keeps them
 *     to loopback proxies of its own, and the CLI gets a per-run key for them. An agent without a key is refused.
 * - `AGENT_SANDBOX=container` (set in the image): the agents' commands run without the CLIs' own sandboxes, the
 *   container being the isolation boundary. Otherwise Codex keeps its `workspace-write` sandbox.
 * Prints `[runner] listening on http://<host>:<port>` once it accepts requests. SIGTERM / SIGINT cancel the running
 * queries (each stream ends with a `cancelled` error) and exit with 0.
 *
 * A runner started by hand runs the agent's shell commands as the user who started it: it is a development tool,
 * not an isolation boundary. The container image is.
 */
import path from "node:path";
import { createRunner } from "./app.ts";
import { type ModelProxy, startModelProxy } from "./model-proxy.ts";
import type { AgentModelAccess } from "./run-agent.ts";

const port = parsePort(process.env.PORT);
// Loopback unless told otherwise: the runner runs shell commands for its callers.
const host = process.env.HOST || "127.0.0.1";
const token = process.env.RUNNER_TOKEN ?? "";
if (token.length < 16) {
  fatal("RUNNER_TOKEN must be set (16 characters or more): it is the only thing between callers and a shell");
}
const workspaceRoot = path.resolve(process.env.WORKSPACE_ROOT || "./workspace");
const allowedHosts = (process.env.RUNNER_ALLOWED_HOSTS ?? "")
  .split(",")
  .map((name) => name.trim())
  .filter((name) => name !== "");

const proxies: ModelProxy[] = [];
const modelAccess: AgentModelAccess = {};
if (process.env.RUNNER_MODEL_PROXY === "worker") {
  modelAccess["claude-agent"] = { kind: "run-token", baseUrl: process.env.ANTHROPIC_BASE_URL || undefined };
  modelAccess["codex-agent"] = { kind: "run-token", baseUrl: process.env.OPENAI_BASE_URL || undefined };
} else {
  const anthropicKey = process.env.ANTHROPIC_API_KEY ?? "";
  const openaiKey = process.env.OPENAI_API_KEY ?? "";
  if (anthropicKey === "" && openaiKey === "") {
    fatal("ANTHROPIC_API_KEY and/or OPENAI_API_KEY must be set (or RUNNER_MODEL_PROXY=worker in the container)");
  }
  if (anthropicKey !== "") {
    const upstream = process.env.ANTHROPIC_BASE_URL || "https://api.anthropic.com";
    const proxy = await startModelProxy({ api: "anthropic", upstream, apiKey: anthropicKey });
    proxies.push(proxy);
    modelAccess["claude-agent"] = { kind: "local-proxy", proxy };
  }
  if (openaiKey !== "") {
    const upstream = process.env.OPENAI_BASE_URL || "https://api.openai.com/v1";
    const proxy = await startModelProxy({ api: "openai", upstream, apiKey: openaiKey });
    proxies.push(proxy);
    modelAccess["codex-agent"] = { kind: "local-proxy", proxy };
  }
}
const sandbox = process.env.AGENT_SANDBOX === "container" ? "container" : "host";

const runner = createRunner({ workspaceRoot, token, allowedHosts, modelAccess, sandbox });
runner.server.on("error", (error) => fatal(`server error: ${error.message}`));
runner.server.listen(port, host, () => {
  const address = runner.server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  const agents = Object.keys(modelAccess).join(", ");
  console.log(`[runner] listening on http://${host}:${actual} (workspace ${workspaceRoot}; agents: ${agents})`);
});

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`[runner] ${signal} received`);
    // Whatever happens, the process is gone within a few seconds.
    setTimeout(() => process.exit(0), 8_000).unref();
    runner
      .shutdown()
      .then(() => Promise.all(proxies.map((proxy) => proxy.close())))
      .then(
        () => process.exit(0),
        () => process.exit(0),
      );
  });
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === "") return 8080;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    fatal(`PORT must be a port number, not ${JSON.stringify(value)}`);
  return parsed;
}

function fatal(message: string): never {
  console.error(`[runner] ${message}`);
  process.exit(1);
}
