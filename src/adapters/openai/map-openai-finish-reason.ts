import type { ChatCompletion } from "openai/resources/chat/completions";
import { type FinishReason, MAX_EXPLANATION_LENGTH } from "../../protocol/events.ts";

type ChatFinishReason = ChatCompletion.Choice["finish_reason"];

/**
 * Chat Completions' `finish_reason` values (platform.openai.com/docs/api-reference/chat/object): a `Record` over the
 * SDK's type, so that a value it adds fails to compile until it is mapped.
 */
const MAPPED: Record<ChatFinishReason, FinishReason> = {
  stop: { kind: "stop" },
  // "the maximum number of tokens specified in the request was reached"
  length: { kind: "length", limit: "output" },
  tool_calls: { kind: "tool_calls" },
  // "content was omitted due to a flag from our content filters"
  content_filter: { kind: "content_filter" },
  // Deprecated functions; the bot sends tools only, but a call is a call.
  function_call: { kind: "tool_calls" },
};

/**
 * Values of OpenAI-compatible servers the adapter also serves (`OPENAI_BASE_URL`): Mistral's `model_length` is the
 * model's own length rather than the request's cap (so asking it to go on would not help).
 */
const COMPATIBLE = new Map<string, FinishReason>([["model_length", { kind: "length", limit: "context" }]]);

/**
 * A choice's `finish_reason` as the neutral finish reason. A `refusal` in the message (the model declining, in its
 * own words, with a `stop` finish) is a refusal with those words; a value not known here is kept raw.
 */
export function mapOpenAIFinishReason(finishReason: string | null | undefined, refusal?: string | null): FinishReason {
  const declined = refusal?.trim();
  if (declined) return { kind: "refusal", explanation: declined.slice(0, MAX_EXPLANATION_LENGTH) };
  if (!finishReason) return { kind: "other", raw: "none" };
  if (Object.hasOwn(MAPPED, finishReason)) return MAPPED[finishReason as ChatFinishReason];
  return COMPATIBLE.get(finishReason) ?? { kind: "other", raw: finishReason.slice(0, 200) };
}
