import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error type of the HTTP boundary: a status, a stable code for machines, a message for people, and the
 * cause for the log. `app.onError` turns it into `{ error, message, details? }`; anything else becomes a 500.
 */
export class HttpError extends Error {
  override readonly name = "HttpError";

  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
