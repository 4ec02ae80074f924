/** Longest line an `adapter_stderr` event carries. */
export const MAX_STDERR_LINE = 500;

const SECRET_ENV = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"];

/**
 * Removes secrets from text that leaves the runner (stderr lines, error messages, logs): the values of the API key
 * variables, any extra values given (the run's tool-callback token), Anthropic-looking keys, and whatever follows an
 * `Authorization`, `x-api-key` or `Bearer`.
 */
export function redact(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  const secrets = [...SECRET_ENV.map((name) => process.env[name]), ...extraSecrets].filter(
    (value): value is string => typeof value === "string" && value.length >= 4,
  );
  for (const secret of secrets) out = out.split(secret).join("[redacted]");
  return out
    .replace(/sk-ant-[A-Za-z0-9_-]+/g, "[redacted]")
    .replace(/\b(authorization|x-api-key)(["']?\s*[:=]\s*["']?)(bearer\s+)?[^\s"',;}]+/gi, "$1$2$3[redacted]")
    .replace(/\bbearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]+/gi, "Bearer [redacted]");
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
