/**
 * The Claude Code CLI's environment: an allow list of the runner's own variables (never its secrets: no API key, no
 * RUNNER_TOKEN, no proxy credentials), the run's model access (a per-run key and where to send it), the chat's own
 * config directory and home, and the switches that keep the CLI from any traffic that is not a model call.
 */

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

export function childEnv(input: ChildEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of CHILD_ENV_ALLOWED) {
    const value = input.base[name];
    if (value !== undefined) env[name] = value;
  }
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
