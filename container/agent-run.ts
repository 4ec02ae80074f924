import type { RunPayload } from "../src/protocol/run-payload.ts";
import type { RunOutput } from "./run-output.ts";
import type { ChatDirectories } from "./workspace.ts";

/**
 * Where the agent's own commands run. `container`: the runner is inside the image, which is the isolation boundary,
 * so the CLI's own sandbox is off (it cannot work there anyway). `host` (a runner started by hand): the CLI keeps
 * its sandbox where it has one (Codex: writes only in the workspace and temp, no network).
 */
export type AgentSandbox = "container" | "host";

/** One prepared run, as each agent's runner gets it. */
export interface AgentRun {
  payload: RunPayload;
  output: RunOutput;
  signal: AbortSignal;
  /** The runner's environment (the CLI's own is an allow list of it). */
  env: NodeJS.ProcessEnv;
  directories: ChatDirectories;
  /** What the CLI presents as its API key (never the real key) and where it sends its model calls. */
  model: { apiKey: string; baseUrl: string | undefined };
  sandbox: AgentSandbox;
}
