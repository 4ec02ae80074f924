import type { CompletionUsage } from "openai/resources/completions";
import type { ToolCall } from "../../protocol/messages.ts";
import type { ModelResponse } from "../types.ts";
import { mapOpenAIFinishReason } from "./map-openai-finish-reason.ts";

/** One Chat Completions answer, read (whole or from its chunks). */
export interface CompletionRead {
  text: string;
  /** The model declining, in its own words (`message.refusal`). */
  refusal: string;
  toolCalls: ToolCall[];
  finishReason: string | null | undefined;
  usage: CompletionUsage | undefined | null;
}

/**
 * The neutral response: the text (or the refusal, when there is nothing else), the tool calls, how it ended and the
 * usage, cached input tokens among it.
 */
export function responseOfCompletion(reply: CompletionRead): ModelResponse {
  const hasCalls = reply.toolCalls.length > 0;
  const cached = reply.usage?.prompt_tokens_details?.cached_tokens;
  const refused = !hasCalls && reply.text === "" && reply.refusal !== "";
  return {
    message: {
      role: "assistant",
      content: refused ? reply.refusal : reply.text,
      ...(hasCalls ? { toolCalls: reply.toolCalls } : {}),
    },
    finish: mapOpenAIFinishReason(reply.finishReason, refused ? reply.refusal : undefined),
    ...(reply.usage
      ? {
          usage: {
            inputTokens: reply.usage.prompt_tokens ?? 0,
            outputTokens: reply.usage.completion_tokens ?? 0,
            ...(typeof cached === "number" ? { cacheReadTokens: cached } : {}),
          },
        }
      : {}),
  };
}

/**
 * A message's content as text. OpenAI sends a string; some compatible servers (Mistral's reasoning models) send
 * parts, of which only the text parts are the answer (their thinking is not shown or kept).
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content as unknown[]) {
    if (typeof part === "object" && part !== null && "type" in part && part.type === "text" && "text" in part) {
      if (typeof part.text === "string") text += part.text;
    }
  }
  return text;
}
