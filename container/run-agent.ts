import type { AgentEvent } from "../src/protocol/events.ts";
import type { RunnerAgent, RunPayload } from "../src/protocol/run-payload.ts";
import { modelKeyOf } from "../src/protocol/run-token.ts";
import type { AgentRun, AgentSandbox } from "./agent-run.ts";
import type { ModelProxy } from "./model-proxy.ts";
import { runClaude } from "./run-claude.ts";
import { runCodex } from "./run-codex.ts";
import { messageOf, RunOutput, type TerminalEvent } from "./run-output.ts";
import { type ChatDirectories, ensureChatDirectories } from "./workspace.ts";

/**
 * How an agent's CLI reaches its model without ever holding the real key:
 * - `local-proxy` (a runner started by hand): the runner's loopback proxy holds the key and accepts a per-run key;
 * - `run-token` (the container): the CLI presents the run's model key (a one-way digest of `toolCallback.token`) to the Worker's
 *   model proxy at `baseUrl`, which checks it, pins the model, caps tokens and adds the key.
 */
type ModelAccess = { kind: "local-proxy"; proxy: ModelProxy } | { kind: "run-token"; baseUrl: string | undefined };

/** The model access of each agent this runner can run; an agent without one is refused. */
export type AgentModelAccess = Partial<Record<RunnerAgent, ModelAccess>>;

export interface RunAgentOptions {
  workspaceRoot: string;
  /** Aborted when the client goes away or the runner shuts down; the reason (a string) becomes the error message. */
  signal: AbortSignal;
  /** Receives the events in order. Exactly one `result` or `error` comes, last; nothing is emitted after it. */
  emit: (event: AgentEvent) => void;
  /** The runner's environment; the CLI gets only an allow list of it (see child-env.ts). */
  env: NodeJS.ProcessEnv;
  modelAccess: AgentModelAccess;
  sandbox: AgentSandbox;
}

/**
 * One run of the payload's agent (`claude-agent` unless it names another), as `AgentEvent`s. Never throws; always
 * ends with exactly one `result` or `error` (also returned). An agent this runner has no model access for is refused
 * with a clear, non-retryable error.
 */
export async function runAgent(payload: RunPayload, options: RunAgentOptions): Promise<TerminalEvent> {
  const output = new RunOutput(options.emit, payload.toolCallback ? [payload.toolCallback.token] : []);
  const agent = payload.agent ?? "claude-agent";
  const finish = (): TerminalEvent => {
    if (!output.terminal) {
      if (options.signal.aborted) output.cancelled(options.signal);
      else output.fail({ classification: "internal", retryable: true }, "the agent process ended without a result");
    }
    return output.terminal!;
  };

  if (options.signal.aborted) return finish();
  const access = options.modelAccess[agent];
  if (!access) {
    const runnable = Object.keys(options.modelAccess).join(", ") || "none";
    output.fail(
      { classification: "invalid_request", retryable: false },
      `this runner cannot run ${agent}: it has no model access for it (it runs: ${runnable})`,
    );
    return finish();
  }
  let directories: ChatDirectories;
  try {
    directories = await ensureChatDirectories(options.workspaceRoot, payload.chatKey);
  } catch (error) {
    output.fail(
      { classification: "internal", retryable: true },
      `the chat's workspace could not be created: ${messageOf(error)}`,
    );
    return finish();
  }
  // In the container the CLI gets the run's model key, not its token: the shell inherits the CLI's environment, and
  // the token opens the tools route (paid tools among them); the key opens only the model proxy for this run.
  const token = payload.toolCallback?.token;
  const apiKey =
    access.kind === "local-proxy"
      ? access.proxy.issueKey()
      : token === undefined
        ? undefined
        : await modelKeyOf(token, payload.chatKey);
  if (apiKey === undefined) {
    output.fail(
      { classification: "invalid_request", retryable: false },
      "the payload has no run token for the model proxy",
    );
    return finish();
  }
  output.addSecret(apiKey);
  const run: AgentRun = {
    payload,
    output,
    signal: options.signal,
    env: options.env,
    directories,
    model: { apiKey, baseUrl: access.kind === "local-proxy" ? access.proxy.url : access.baseUrl },
    sandbox: options.sandbox,
  };
  try {
    switch (agent) {
      case "claude-agent":
        await runClaude(run);
        break;
      case "codex-agent":
        await runCodex(run);
        break;
      default:
        assertNever(agent);
    }
  } catch (error) {
    output.fail({ classification: "internal", retryable: true }, `the agent run failed: ${messageOf(error)}`);
  } finally {
    if (access.kind === "local-proxy") access.proxy.release(apiKey);
  }
  return finish();
}

function assertNever(value: never): never {
  throw new Error(`unexpected agent ${String(value)}`);
}
