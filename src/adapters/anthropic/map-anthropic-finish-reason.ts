import type { RefusalStopDetails, StopReason } from "@anthropic-ai/sdk/resources/messages/messages";
import { type FinishReason, MAX_EXPLANATION_LENGTH } from "../../protocol/events.ts";

/**
 * The Messages API's `stop_reason` values and what they mean here (platform.claude.com/docs/en/build-with-claude/
 * handling-stop-reasons): a `Record` over the SDK's `StopReason`, so that a value the SDK adds fails to compile until
 * it is mapped. `refusal` carries `stop_details`, read apart.
 */
const MAPPED: Record<Exclude<StopReason, "refusal">, FinishReason> = {
  end_turn: { kind: "stop" },
  // No request sets stop_sequences; one that fired would still be a natural end.
  stop_sequence: { kind: "stop" },
  max_tokens: { kind: "length", limit: "output" },
  // "The response filled the model's context window. Treat the response as truncated."
  model_context_window_exceeded: { kind: "length", limit: "context" },
  tool_use: { kind: "tool_calls" },
  // A server tool's loop (web search) reached its iteration limit; sending the answer back continues it.
  pause_turn: { kind: "paused" },
};

function isMapped(reason: string): reason is keyof typeof MAPPED {
  return Object.hasOwn(MAPPED, reason);
}

/**
 * An answer's `stop_reason` (the message's, or the stream's `message_delta`), as the neutral finish reason. A refusal
 * carries the explanation of `stop_details` when the API gives one; a value not known here is kept raw.
 */
export function mapAnthropicFinishReason(
  stopReason: string | null | undefined,
  details?: Pick<RefusalStopDetails, "explanation"> | null,
): FinishReason {
  if (stopReason === "refusal") {
    const explanation = details?.explanation?.trim().slice(0, MAX_EXPLANATION_LENGTH);
    return explanation ? { kind: "refusal", explanation } : { kind: "refusal" };
  }
  if (stopReason && isMapped(stopReason)) return MAPPED[stopReason];
  return { kind: "other", raw: (stopReason ?? "none").slice(0, 200) };
}
