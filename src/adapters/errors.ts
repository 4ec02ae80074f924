import type { AgentErrorEvent, ErrorClassification } from "./events.ts";

/** The error classes an SDK exposes on its client class (both the OpenAI and the Anthropic SDK do). */
export interface SdkErrorClasses {
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

/**
 * Turns whatever an SDK call threw into an `error` event. Both SDKs throw errors with an HTTP `status` for API
 * answers and connection/timeout/abort error classes otherwise; their own retries have already run by then.
 */
export function errorEventFrom(error: unknown, provider: string, sdk?: SdkErrorClasses): AgentErrorEvent {
  const status = statusOf(error);
  const name = error instanceof Error ? error.name : "";
  const detail = redactSecrets(messageOf(error)).slice(0, 300);
  let classification: ErrorClassification;
  if ((sdk && error instanceof sdk.APIUserAbortError) || name === "AbortError") classification = "cancelled";
  else if ((sdk && error instanceof sdk.APIConnectionTimeoutError) || status === 408) classification = "timeout";
  else if (status === 401 || status === 403) classification = "auth";
  else if (status === 429) classification = "quota";
  else if (status === 529 || status === 503) classification = "overloaded";
  else if (status !== undefined && status >= 500) classification = "transport";
  else if (status !== undefined && status >= 400) classification = "invalid_request";
  else if ((sdk && error instanceof sdk.APIConnectionError) || error instanceof TypeError) classification = "transport";
  else classification = "internal";
  return {
    type: "error",
    classification,
    retryable: ["quota", "overloaded", "transport", "timeout"].includes(classification),
    message: `${provider}: ${status ? `${status} ` : ""}${detail}`.trim(),
  };
}

function statusOf(error: unknown): number | undefined {
  if (error && typeof error === "object" && "status" in error) {
    const status = (error as { status: unknown }).status;
    if (typeof status === "number") return status;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : "unknown error";
}

/** Masks anything that looks like an API key or bearer token before a text is shown or logged. */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_*-]{6,}/g, "$1-…")
    .replace(/\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, "Bearer …")
    .replace(/\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, "…");
}
