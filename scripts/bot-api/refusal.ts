/**
 * A Bot API refusal as Telegram words it: `{ ok: false, error_code, description, parameters? }`. Descriptions are
 * Telegram's own where they could be confirmed (tdlib/telegram-bot-api's Client.cpp, TDLib's sources, and answers
 * reported from the real server); the few chosen ones say so where they are made.
 */
export interface Refusal {
  status: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

export function badRequest(description: string): Refusal {
  return { status: 400, description: `Bad Request: ${description}` };
}

/**
 * An answer to a query (callback, inline, guest, widget) that is unknown or came too late: telegram-bot-api's words
 * for TDLib's QUERY_ID_INVALID.
 */
export const QUERY_TOO_OLD: Refusal = badRequest(
  "query is too old and response timeout expired or query ID is invalid",
);

/** An unknown method (api.telegram.org's answer; a self-hosted telegram-bot-api says "Not Found: method not found"). */
export const NOT_FOUND: Refusal = { status: 404, description: "Not Found" };

export function tooManyRequests(retryAfter: number): Refusal {
  return {
    status: 429,
    description: `Too Many Requests: retry after ${retryAfter}`,
    parameters: { retry_after: retryAfter },
  };
}

const SERVER_ERRORS: Record<number, string> = {
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export function serverError(status: number): Refusal {
  return { status, description: SERVER_ERRORS[status] ?? "Internal Server Error" };
}

/** How the Bot API server turns a TDLib error into a description: "Bad Request: " and the first letter lowered. */
export function fromTdlib(message: string): Refusal {
  const keepCase = message.length >= 2 && (message[1] === "_" || (message[1]! >= "A" && message[1]! <= "Z"));
  return badRequest(keepCase ? message : message.charAt(0).toLowerCase() + message.slice(1));
}
