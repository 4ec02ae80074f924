import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The body of every refusal, from the Worker and from the agent runner alike. */
export interface ErrorEnvelope {
  error: string;
  message: string;
  details?: unknown;
}

/** What a refusal says: a stable code for machines, a message for people, optional details and the cause for the log. */
export interface HttpErrorOptions {
  code: string;
  message: string;
  details?: unknown;
  cause?: unknown;
}

/**
 * The one error type of the HTTP boundary: a status and its options, as Hono's `HTTPException` takes them.
 * `handleError` turns it into an `ErrorEnvelope`; anything else becomes a 500.
 */
export class HttpError extends Error {
  override readonly name = "HttpError";
  // Plain fields, not constructor parameter properties: the runner runs this file with Node's type stripping.
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly details: unknown;

  constructor(status: ContentfulStatusCode, options: HttpErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = options.code;
    this.details = options.details;
  }

  envelope(): ErrorEnvelope {
    return {
      error: this.code,
      message: this.message,
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

/** `app.onError` for every Hono app of this project: known refusals as their envelope, the rest as a logged 500. */
export function handleError(error: Error, c: Context, log: (line: string) => void = console.error): Response {
  if (error instanceof HttpError) return c.json(error.envelope(), error.status);
  if (error instanceof HTTPException) {
    // Hono's own refusals (a malformed path, a validator's complaint).
    const envelope: ErrorEnvelope = { error: "invalid_request", message: error.message || "Bad request." };
    return c.json(envelope, error.status);
  }
  log(`unhandled error: ${error.name}: ${error.message}`);
  return c.json({ error: "internal", message: "Internal error." } satisfies ErrorEnvelope, 500);
}

export function notFound(c: Context): Response {
  return c.json({ error: "not_found", message: "Not found." } satisfies ErrorEnvelope, 404);
}
