import { assertNever } from "../lib/errors.ts";
import type { FinishReason } from "../protocol/events.ts";

/**
 * The sentence the person reads under (or instead of) an answer that did not end normally, or undefined for one that
 * did. Names no provider: the reason is the neutral one every adapter maps its provider's into.
 */
export function finishNote(finish: FinishReason | undefined): string | undefined {
  if (finish === undefined) return undefined;
  switch (finish.kind) {
    case "stop":
    case "tool_calls":
      return undefined;
    case "length": {
      const limit = finish.limit === "output" ? "the model's output limit" : "the end of the model's context window";
      return finish.toolCall === undefined
        ? `✂️ The answer was cut off here: it reached ${limit}.`
        : `✂️ The model's call of ${finish.toolCall} was cut off at ${limit} before it was complete, so it was not run.`;
    }
    case "content_filter":
      return "🚫 The provider's content filter withheld this answer.";
    case "refusal":
      return finish.explanation === undefined
        ? "🚫 The model declined to answer this."
        : `🚫 The model declined to answer this: “${finish.explanation}”`;
    case "paused":
      return "✂️ The answer stopped before it was finished: the provider paused it.";
    case "other":
      return `⚠️ The model stopped for a reason this bot does not know (${finish.raw}), so the answer may be incomplete.`;
    default:
      return assertNever(finish, "finish reason");
  }
}
