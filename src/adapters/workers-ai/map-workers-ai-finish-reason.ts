import type { FinishReason } from "../../protocol/events.ts";
import { mapOpenAIFinishReason } from "../openai/map-openai-finish-reason.ts";

/** What the binding's output says of its end, when it says anything. */
export interface WorkersAiEnd {
  /** `finish_reason` of the newer models' output (OpenAI's values, `model_length` besides), or of a stream chunk. */
  finishReason: string | null | undefined;
  toolCalls: number;
  completionTokens: number | undefined;
  /** The `max_tokens` the call asked for. */
  maxTokens: number;
}

/**
 * The binding's end as the neutral finish reason. The newer models answer in OpenAI's format with a `finish_reason`,
 * mapped as OpenAI's is. Workers AI's own format (`response`, `tool_calls`, `usage`: the output schemas in
 * @cloudflare/workers-types, e.g. `Ai_Cf_Meta_Llama_3_3_70B_Instruct_Fp8_Fast_Output`) has none: an answer with tool
 * calls asked for them, one that used every token it was allowed was cut by the cap, and any other stopped by itself,
 * since a limit or a failure are the only other ways an answer ends.
 */
export function mapWorkersAiFinishReason(end: WorkersAiEnd): FinishReason {
  if (end.finishReason) return mapOpenAIFinishReason(end.finishReason);
  if (end.toolCalls > 0) return { kind: "tool_calls" };
  if (end.completionTokens !== undefined && end.completionTokens >= end.maxTokens) {
    return { kind: "length", limit: "output" };
  }
  return { kind: "stop" };
}
