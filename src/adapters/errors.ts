import { NO_CONNECTION } from "../config/provider-setup.ts";
import { redactSecrets } from "../lib/redact.ts";
import type { AgentErrorEvent, ErrorClassification } from "../protocol/events.ts";

/** The error classes an SDK exposes on its client class (both the OpenAI and the Anthropic SDK do). */
export interface SdkErrorClasses {
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

const RETRYABLE: ReadonlySet<ErrorClassification> = new Set(["quota", "overloaded", "transport", "timeout"]);

/** The one error type of the provider boundary: what failed, classified, with the SDK's error as the cause. */
export class ProviderError extends Error {
  override readonly name = "ProviderError";

  constructor(
    readonly classification: ErrorClassification,
    message: string,
    options?: { cause?: unknown; retryable?: boolean; modelGone?: boolean },
  ) {
    super(message, options);
    this.retryable = options?.retryable ?? RETRYABLE.has(classification);
    this.modelGone = options?.modelGone ?? false;
  }

  readonly retryable: boolean;
  /**
   * The provider does not serve the model (it was retired, or never existed for this key): a 404 with OpenAI's
   * `model_not_found` or Anthropic's `not_found_error`. The chat falls back rather than failing every turn.
   */
  readonly modelGone: boolean;
}

/**
 * Classifies whatever an SDK call threw. Both SDKs throw errors with an HTTP `status` for API answers and
 * connection/timeout/abort error classes otherwise; their own retries have already run by then.
 */
export function providerErrorFrom(error: unknown, label: string, sdk?: SdkErrorClasses): ProviderError {
  if (error instanceof ProviderError) return error;
  const status = statusOf(error);
  const name = error instanceof Error ? error.name : "";
  // The SDKs' connection error (not its timeout subclass) is thrown only when no response came at all.
  const noConnection =
    sdk !== undefined && error instanceof sdk.APIConnectionError && !(error instanceof sdk.APIConnectionTimeoutError);
  const cause = error instanceof Error && error.cause !== undefined ? `: ${messageOf(error.cause)}` : "";
  const detail = redactSecrets(noConnection ? `${NO_CONNECTION}${cause}` : messageOf(error)).slice(0, 300);
  return new ProviderError(
    classify(error, status, name, sdk),
    `${label}: ${status ? `${status} ` : ""}${detail}`.trim(),
    { cause: error, modelGone: status === 404 && namesMissingModel(error) },
  );
}

/**
 * Whether a 404's body says the model is not served. The OpenAI SDK keeps the body's `error` object (`code:
 * "model_not_found"`) and copies its `code`; the Anthropic SDK keeps the whole body (`error.type: "not_found_error"`).
 */
function namesMissingModel(error: unknown): boolean {
  const seen = [error, fieldOf(error, "error"), fieldOf(fieldOf(error, "error"), "error")];
  return seen.some(
    (part) => fieldOf(part, "code") === "model_not_found" || fieldOf(part, "type") === "not_found_error",
  );
}

function fieldOf(value: unknown, name: string): unknown {
  return value !== null && typeof value === "object" && name in value
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

function classify(
  error: unknown,
  status: number | undefined,
  name: string,
  sdk?: SdkErrorClasses,
): ErrorClassification {
  if ((sdk && error instanceof sdk.APIUserAbortError) || name === "AbortError") return "cancelled";
  if ((sdk && error instanceof sdk.APIConnectionTimeoutError) || status === 408) return "timeout";
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "quota";
  if (status === 529 || status === 503) return "overloaded";
  if (status !== undefined && status >= 500) return "transport";
  if (status !== undefined && status >= 400) return "invalid_request";
  if ((sdk && error instanceof sdk.APIConnectionError) || error instanceof TypeError) return "transport";
  // A connection that breaks mid-stream surfaces as a plain Error from the body reader.
  if (/network|connection|socket|terminated|fetch failed|ECONNRESET/i.test(messageOf(error))) return "transport";
  return "internal";
}

/** Any failure of a model call as the `error` event a turn ends with. */
export function errorEventOf(error: unknown, label: string, sdk?: SdkErrorClasses): AgentErrorEvent {
  const classified = providerErrorFrom(error, label, sdk);
  return {
    type: "error",
    classification: classified.classification,
    retryable: classified.retryable,
    message: classified.message,
  };
}

function statusOf(error: unknown): number | undefined {
  if (error !== null && typeof error === "object" && "status" in error && typeof error.status === "number") {
    return error.status;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : "unknown error";
}
