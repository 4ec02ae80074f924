/**
 * The agents' CLIs' environments: an allow list of the runner's own variables (never its secrets: no API key, no
 * RUNNER_TOKEN, no proxy credentials), the run's model access (a per-run key and where to send it), the chat's own
 * config directory and home, and the switches that keep the CLI from any traffic that is not a model call.
 */
import { CODEX_KEY_ENV, CODEX_TOOLS_TOKEN_ENV } from "./codex-args.ts";

/** Variables passed through from the runner's environment, when set. Everything else stays out. */
const CHILD_ENV_ALLOWED = [
  "PATH",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "TERM",
  "USER",
  "LOGNAME",
  "SHELL",
  "IS_SANDBOX",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "CLAUDE_CODE_MAX_RETRIES",
  "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
  "DISABLE_TELEMETRY",
  "DISABLE_ERROR_REPORTING",
  "DISABLE_AUTOUPDATER",
  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
  "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY",
] as const;

export interface ChildEnvInput {
  /** The runner's environment. */
  base: NodeJS.ProcessEnv;
  /** What the CLI presents as its API key: a per-run secret, never the real key. */
  apiKey: string;
  /** Where the CLI sends model calls (a proxy that checks `apiKey`); unset: the CLI's default. */
  baseUrl: string | undefined;
  /** The chat's own CLAUDE_CONFIG_DIR (sessions, transcripts) and HOME. */
  configDirectory: string;
  homeDirectory: string;
}

/** The allow-listed variables of the runner's environment that are set. */
function allowedOf(base: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of CHILD_ENV_ALLOWED) {
    const value = base[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The Claude Code CLI's environment. */
export function childEnv(input: ChildEnvInput): Record<string, string> {
  const env = allowedOf(input.base);
  return {
    ...env,
    HOME: input.homeDirectory,
    CLAUDE_CONFIG_DIR: input.configDirectory,
    ANTHROPIC_API_KEY: input.apiKey,
    ...(input.baseUrl ? { ANTHROPIC_BASE_URL: input.baseUrl } : {}),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC ?? "1",
    DISABLE_TELEMETRY: env.DISABLE_TELEMETRY ?? "1",
    DISABLE_ERROR_REPORTING: env.DISABLE_ERROR_REPORTING ?? "1",
    DISABLE_AUTOUPDATER: env.DISABLE_AUTOUPDATER ?? "1",
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: env.CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY ?? "1",
    CLAUDE_AGENT_SDK_CLIENT_APP: "telegram-edge-agent-runner/0.1.0",
  };
}

export interface CodexEnvInput {
  /** The runner's environment. */
  base: NodeJS.ProcessEnv;
  /** What the CLI presents as its API key (the model provider's `env_key`): a per-run secret, never the real key. */
  apiKey: string;
  /** The bearer token of the run's loopback MCP server of the bot's tools, when there is one. */
  toolsToken: string | undefined;
  /** The chat's own CODEX_HOME (sessions, state) and HOME. */
  codexHome: string;
  homeDirectory: string;
}

/** The Codex CLI's environment: its settings themselves come as `-c` overrides (codex-args.ts), not variables. */
export function codexChildEnv(input: CodexEnvInput): Record<string, string> {
  return {
    ...allowedOf(input.base),
    HOME: input.homeDirectory,
    CODEX_HOME: input.codexHome,
    [CODEX_KEY_ENV]: input.apiKey,
    ...(input.toolsToken === undefined ? {} : { [CODEX_TOOLS_TOKEN_ENV]: input.toolsToken }),
    // Plain output: the JSON lines and stderr go to a program, not a terminal.
    NO_COLOR: "1",
  };
}
