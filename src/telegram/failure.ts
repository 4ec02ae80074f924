import { GrammyError } from "grammy/web";
import { errorText } from "../lib/errors.ts";

/**
 * What a failed Bot API call says. Telegram refused it (4xx: it will refuse it again), and perhaps refused the rich
 * form itself; or Telegram is unavailable (5xx after the retries) or the call's fate is unknown (a timeout, a dropped
 * connection: the request may have been carried out). Only a refusal may change how the bot talks to a chat;
 * an unavailable Telegram says nothing about rich messages or drafts, and an uncertain send is never repeated.
 */
export type TelegramFailure =
  | { kind: "refused"; description: string; rich: boolean }
  | { kind: "unavailable"; description: string };

export function failureOf(error: unknown): TelegramFailure {
  if (error instanceof GrammyError && error.error_code < 500) {
    return { kind: "refused", description: `${error.error_code} ${error.description}`, rich: isRichRefusal(error) };
  }
  return { kind: "unavailable", description: errorText(error) };
}

/**
 * Whether Telegram refused the rich form of a message, not the message: an older or self-hosted Bot API server
 * without the methods (404, "Not Found" or "Not Found: method not found"), one that ignores an edit's `rich_message`
 * (so the edit has no text), a `RICH_MESSAGE_*` error, or Markdown it could not parse.
 */
export function isRichRefusal(error: unknown): boolean {
  if (!(error instanceof GrammyError)) return false;
  if (error.error_code === 404) return true;
  return (
    error.error_code === 400 &&
    /RICH_MESSAGE|can't parse|parse error|message text is empty|text must be non-empty/i.test(error.description)
  );
}
