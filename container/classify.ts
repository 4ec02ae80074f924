import type { AgentErrorEvent } from "../src/protocol/events.ts";

/** An error's classification and whether it is worth retrying. */
export type Classified = Pick<AgentErrorEvent, "classification" | "retryable">;

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

/**
 * A Codex turn's failure, from the message the CLI prints (`turn.failed`): its words for an HTTP status
 * (`unexpected status 401 Unauthorized: …`, `exceeded retry limit, last status: 429 …`), the API's error body it
 * sometimes passes on whole, or its own sentences for quota, context, overload and a broken stream.
 */
export function classifyCodexError(message: string): Classified {
  const status = /(?:unexpected status|last status:)\s*(\d{3})/i.exec(message)?.[1];
  if (/quota exceeded|insufficient_quota|billing/i.test(message)) return { classification: "quota", retryable: false };
  if (/context window|context_length_exceeded/i.test(message))
    return { classification: "invalid_request", retryable: false };
  if (status !== undefined) return classifyStatus(Number(status));
  const body = errorBodyOf(message);
  if (body) {
    switch (body.code ?? body.type) {
      case "invalid_api_key":
      case "authentication_error":
        return { classification: "auth", retryable: false };
      case "rate_limit_exceeded":
        return { classification: "quota", retryable: true };
      case "server_error":
        return { classification: "overloaded", retryable: true };
      default:
        if (body.type === "invalid_request_error") return { classification: "invalid_request", retryable: false };
    }
  }
  if (/does not exist or you do not have access|model_not_found/i.test(message))
    return { classification: "invalid_request", retryable: false };
  if (/api key|unauthorized|authentication/i.test(message)) return { classification: "auth", retryable: false };
  if (/high demand|overloaded|temporar(il)?y unavailable/i.test(message))
    return { classification: "overloaded", retryable: true };
  if (/idle timeout|timed out|timeout/i.test(message)) return { classification: "timeout", retryable: true };
  if (/stream disconnected|transport error|network error|error sending request|connection/i.test(message))
    return { classification: "transport", retryable: true };
  return { classification: "internal", retryable: true };
}

function classifyStatus(status: number): Classified {
  if (status === 401 || status === 403) return { classification: "auth", retryable: false };
  if (status === 429) return { classification: "quota", retryable: true };
  if (status === 408 || status === 504) return { classification: "timeout", retryable: true };
  if (status === 503 || status === 529) return { classification: "overloaded", retryable: true };
  if (status >= 400 && status < 500) return { classification: "invalid_request", retryable: false };
  return { classification: "internal", retryable: true };
}

/** The `{"error": {…}}` body of an API error when the message is one (Codex passes some on verbatim). */
function errorBodyOf(message: string): { type?: string; code?: string } | undefined {
  const start = message.indexOf("{");
  if (start < 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(message.slice(start));
    const error = (parsed as { error?: unknown } | null)?.error;
    if (error === null || typeof error !== "object") return undefined;
    const fields = error as Record<string, unknown>;
    return {
      ...(typeof fields.type === "string" ? { type: fields.type } : {}),
      ...(typeof fields.code === "string" ? { code: fields.code } : {}),
    };
  } catch {
    return undefined;
  }
}
