import type { AgentSandbox } from "./agent-run.ts";
import type { CodexSkills } from "./skills.ts";

/** The environment variables Codex reads its two secrets from (names with KEY/TOKEN: Codex keeps them out of the
 * environment of the commands it runs). */
export const CODEX_KEY_ENV = "BOT_MODEL_KEY";
export const CODEX_TOOLS_TOKEN_ENV = "BOT_TOOLS_TOKEN";
/** The model provider the CLI is pointed at: the run's model proxy, never OpenAI itself. */
const PROVIDER = "bot";
/** Above the bot's own 60 s per tool call, so a slow Worker ends in the bridge's clean error result. */
const TOOL_TIMEOUT_SECONDS = 75;
/** A `-c` value is one argument; Linux refuses a single argument over 128 KiB. */
const MAX_CONFIG_ARGUMENT_BYTES = 120_000;

export interface CodexInvocation {
  model: string;
  /** The OpenAI-style base URL (`…/v1`) of the model proxy. */
  baseUrl: string;
  /** The thread to resume, or undefined for a new one. */
  resume: string | undefined;
  /** The bot's system prompt for a new thread (Codex keeps a thread's first developer instructions). */
  developerInstructions: string | undefined;
  sandbox: AgentSandbox;
  /** The bot's tools as a loopback MCP server, when the run has any. */
  toolServerUrl: string | undefined;
  /** Retries of a failed model request and of a dropped stream (the CLI's own backoff). */
  maxRetries: number;
  /** The chat's skills for this run: listed (the runner's, with every other one turned off), or none. */
  skills: CodexSkills;
}

/**
 * The `codex exec` command line (after the executable) for one turn, the prompt read from stdin (`-`). Everything is
 * set with `-c` overrides under `--strict-config` (an override this CLI version does not know is an error, not a
 * silently ignored safety setting), and no configuration file is read: `--ignore-user-config` skips
 * `$CODEX_HOME/config.toml`, an untrusted workspace's `.codex/config.toml` is never loaded, `project_doc_max_bytes = 0`
 * turns off `AGENTS.md`, `project_root_markers = []` stops the search for a project above the workspace, and
 * `--ignore-rules` skips execpolicy rules. Skills: without the chat's own, none is listed to the model
 * (`skills.include_instructions = false`); with them, the CLI's bundled skills are off and every `SKILL.md` but the
 * runner's is turned off by path (skills.ts). prompt.ts keeps a message's `$name` from invoking one.
 *
 * Sandbox: in the container (the isolation boundary) commands run without Codex's sandbox and without approvals;
 * in a runner started by hand, Codex's `workspace-write` sandbox (writes in the workspace and temp only, no network),
 * and never an approval prompt (nobody could answer one; a refused command fails back to the model).
 */
export function codexArguments(invocation: CodexInvocation): string[] {
  const config: Array<[string, string | number | boolean | readonly string[]]> = [
    ["model_provider", PROVIDER],
    [`model_providers.${PROVIDER}.name`, "Telegram bot model proxy"],
    [`model_providers.${PROVIDER}.base_url`, invocation.baseUrl],
    [`model_providers.${PROVIDER}.env_key`, CODEX_KEY_ENV],
    [`model_providers.${PROVIDER}.wire_api`, "responses"],
    [`model_providers.${PROVIDER}.request_max_retries`, invocation.maxRetries],
    [`model_providers.${PROVIDER}.stream_max_retries`, invocation.maxRetries],
    ["approval_policy", "never"],
    ["sandbox_mode", invocation.sandbox === "container" ? "danger-full-access" : "workspace-write"],
    ["sandbox_workspace_write.network_access", false],
    ["project_doc_max_bytes", 0],
    ["project_root_markers", []],
    ["skills.include_instructions", invocation.skills.kind === "listed"],
    ["skills.bundled.enabled", false],
    // Server-side web search would reach the web past the container's egress list and the proxy's meter.
    ["web_search", "disabled"],
    ["analytics.enabled", false],
    ["feedback.enabled", false],
    ["check_for_update_on_startup", false],
    ["history.persistence", "none"],
    // What would reach OpenAI's or ChatGPT's own services, or add tools the bot does not offer.
    ["features.apps", false],
    ["features.plugins", false],
    ["features.remote_plugin", false],
    ["features.tool_suggest", false],
    ["features.image_generation", false],
    ["features.browser_use", false],
    ["features.computer_use", false],
    ["features.goals", false],
    ["features.memories", false],
    ["features.hooks", false],
  ];
  if (invocation.developerInstructions !== undefined && invocation.developerInstructions.trim() !== "") {
    config.push(["developer_instructions", invocation.developerInstructions]);
  }
  if (invocation.toolServerUrl !== undefined) {
    const server = "mcp_servers.bot";
    config.push(
      [`${server}.url`, invocation.toolServerUrl],
      [`${server}.bearer_token_env_var`, CODEX_TOOLS_TOKEN_ENV],
      [`${server}.required`, true],
      [`${server}.startup_timeout_sec`, 20],
      [`${server}.tool_timeout_sec`, TOOL_TIMEOUT_SECONDS],
      // The bot's tools check who may do what themselves; Codex must not wait for an approval nobody can give.
      [`${server}.default_tools_approval_mode`, "approve"],
    );
  }
  const overrides = config.flatMap(([key, value]) => ["-c", `${key}=${toml(value)}`]);
  if (invocation.skills.kind === "listed" && invocation.skills.disabledPaths.length > 0) {
    const rules = invocation.skills.disabledPaths.map((file) => `{ path = ${toml(file)}, enabled = false }`);
    overrides.push("-c", `skills.config=[${rules.join(", ")}]`);
  }
  const common = ["--json", "--strict-config", "--skip-git-repo-check", "--ignore-user-config", "--ignore-rules"];
  const model = ["--model", invocation.model];
  return invocation.resume === undefined
    ? ["exec", ...common, ...model, ...overrides, "-"]
    : ["exec", "resume", ...common, ...model, ...overrides, invocation.resume, "-"];
}

/** A TOML value: strings as basic strings (JSON's escapes are TOML's, once lone surrogates are gone). */
export function toml(value: string | number | boolean | readonly string[]): string {
  if (typeof value === "string") return JSON.stringify(value.toWellFormed());
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return `[${value.map((item) => toml(item)).join(", ")}]`;
}

/** Whether instructions fit in one `-c` argument; longer ones go into the prompt instead. */
export function fitsInArgument(instructions: string): boolean {
  return Buffer.byteLength(toml(instructions)) + 40 <= MAX_CONFIG_ARGUMENT_BYTES;
}
