import { errorText } from "../lib/errors.ts";
import { BotApiError, BotApiHttpError } from "./bot-api.ts";

/**
 * What a failed Bot API call says. Telegram refused it (a 4xx other than 429: it will refuse it again), and perhaps
 * refused the rich form itself; or Telegram is unavailable: a 5xx after the retries, a 429 asking for a longer wait
 * than the caller holds (`retryAfterSeconds`), or a call whose fate is unknown (`uncertain`: a timeout, a dropped
 * connection, after which the request may have been carried out). Only a refusal may change how the bot talks to a
 * chat; an unavailable Telegram says nothing about rich messages or drafts.
 */
export type TelegramFailure =
  | { kind: "refused"; description: string; rich: boolean }
  | { kind: "unavailable"; description: string; uncertain: boolean; retryAfterSeconds?: number };

export function failureOf(error: unknown): TelegramFailure {
  if (error instanceof BotApiError) {
    const description = `${error.error_code} ${error.description}`;
    if (error.error_code === 429) {
      const retryAfter = error.parameters.retry_after;
      return {
        kind: "unavailable",
        description,
        uncertain: false,
        ...(retryAfter ? { retryAfterSeconds: retryAfter } : {}),
      };
    }
    if (error.error_code < 500) return { kind: "refused", description, rich: isRichRefusal(error) };
    return { kind: "unavailable", description, uncertain: false };
  }
  // An answer that came but was not the Bot API's JSON (a proxy's error page) was not carried out; a timeout or a
  // dropped connection may have been.
  const answered = error instanceof BotApiHttpError && error.cause instanceof SyntaxError;
  return { kind: "unavailable", description: errorText(error), uncertain: !answered };
}

/**
 * Whether a refusal is of the chat rather than of one message: the bot was blocked, kicked or never let in, the chat
 * or the person is gone. Everything still waiting for such a chat would be refused too.
 */
export function refusesTheChat(description: string): boolean {
  return /^403\b|chat not found|user is deactivated|bot was kicked|bot was blocked|group chat was deactivated|not enough rights to send|have no rights to send|PEER_ID_INVALID|CHAT_WRITE_FORBIDDEN/i.test(
    description,
  );
}

/**
 * Whether Telegram refused the rich form of a message, not the message: an older or self-hosted Bot API server
 * without the methods (404, "Not Found" or "Not Found: method not found"), one that ignores an edit's `rich_message`
 * (so the edit has no text), a `RICH_MESSAGE_*` error, or Markdown it could not parse.
 */
function isRichRefusal(error: unknown): boolean {
  if (!(error instanceof BotApiError)) return false;
  if (error.error_code === 404) return true;
  return (
    error.error_code === 400 &&
    /RICH_MESSAGE|can't parse|parse error|message text is empty|text must be non-empty/i.test(error.description)
  );
}
