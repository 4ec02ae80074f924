import type { AgentErrorEvent } from "../src/protocol/events.ts";

type Classified = Pick<AgentErrorEvent, "classification" | "retryable">;

export interface ApiFailure {
  /** The `error` of the synthetic assistant message before the result (`SDKAssistantMessageError`). */
  kind?: string | undefined;
  /** `api_error_status`: the HTTP status, null when there was no response. */
  status?: number | null | undefined;
  /** `api_error_type` (not in the SDK's types): the Anthropic error type, e.g. `overloaded_error`. */
  errorType?: string | undefined;
  /** `api_error` (not in the SDK's types): e.g. `connection_failed`. */
  apiError?: string | undefined;
}

/**
 * An API failure the CLI reports as a `result` with `is_error: true`. The assistant message's `error` kind decides
 * when it is specific; a generic one (`server_error`, `unknown`) defers to the Anthropic error type, then to the
 * HTTP status (a 529 arrives as `server_error` + `overloaded_error` + 529).
 */
export function classifyApiError(failure: ApiFailure): Classified {
  switch (failure.kind) {
    case "authentication_failed":
    case "oauth_org_not_allowed":
    case "account_on_hold":
    case "verification_required":
    case "cloud_credential_error":
      return { classification: "auth", retryable: false };
    case "billing_error":
      return { classification: "quota", retryable: false };
    case "rate_limit":
      return { classification: "quota", retryable: true };
    case "overloaded":
      return { classification: "overloaded", retryable: true };
    case "invalid_request":
    case "model_not_found":
    case "max_output_tokens":
      return { classification: "invalid_request", retryable: false };
  }
  switch (failure.errorType) {
    case "authentication_error":
    case "permission_error":
      return { classification: "auth", retryable: false };
    case "rate_limit_error":
      return { classification: "quota", retryable: true };
    case "overloaded_error":
      return { classification: "overloaded", retryable: true };
    case "invalid_request_error":
    case "not_found_error":
    case "request_too_large":
      return { classification: "invalid_request", retryable: false };
    case "timeout_error":
      return { classification: "timeout", retryable: true };
  }
  if (failure.apiError === "connection_failed") return { classification: "transport", retryable: true };
  const status = failure.status;
  if (typeof status === "number") {
    if (status === 401 || status === 403) return { classification: "auth", retryable: false };
    if (status === 429) return { classification: "quota", retryable: true };
    if (status === 529 || status === 503) return { classification: "overloaded", retryable: true };
    if (status === 408 || status === 504) return { classification: "timeout", retryable: true };
    if (status >= 400 && status < 500) return { classification: "invalid_request", retryable: false };
    return { classification: "internal", retryable: true };
  }
  if (failure.kind === "server_error" && status === null) return { classification: "transport", retryable: true };
  return { classification: "internal", retryable: true };
}

/** A `result` whose subtype says the turn stopped early. */
export function classifyResultSubtype(subtype: string): Classified {
  switch (subtype) {
    case "error_max_budget_usd":
      return { classification: "quota", retryable: false };
    case "error_max_turns":
    case "error_max_structured_output_retries":
      return { classification: "internal", retryable: false };
    default:
      return { classification: "internal", retryable: true };
  }
}

/** An exception out of `query()`: the CLI could not start, died, or its pipe broke. */
export function classifyThrown(error: unknown): Classified {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /ECONN|EPIPE|ENOTFOUND|EAI_AGAIN|socket|network|fetch failed/i.test(text)
    ? { classification: "transport", retryable: true }
    : { classification: "internal", retryable: true };
}
