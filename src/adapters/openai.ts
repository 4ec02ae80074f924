import OpenAI from "openai";
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { HistoryMessage } from "../protocol/messages.ts";
import type { ModelTool } from "../protocol/run-payload.ts";
import { ProviderError, providerErrorFrom } from "./errors.ts";
import type { ModelAdapter, ModelRequest, ModelResponse } from "./types.ts";

export interface OpenAIAdapterOptions {
  apiKey: string;
  baseUrl?: string;
  maxRetries: number;
  timeoutMs: number;
}

/**
 * Chat Completions with function calling. Any OpenAI-compatible server works through `baseUrl` (AI Gateway,
 * OpenRouter, Groq, a local server). Retries of 408/409/429/5xx and timeouts are the SDK's own: bounded exponential
 * backoff (0.5 s doubling to 8 s, with jitter) that waits `retry-after` / `retry-after-ms` when the server sends one.
 */
export class OpenAIAdapter implements ModelAdapter {
  readonly kind = "model";
  readonly label = "OpenAI";
  private readonly client: OpenAI;

  constructor(options: OpenAIAdapterOptions) {
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseUrl,
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
    });
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const tools = request.tools.map(toOpenAITool);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        {
          model: request.model,
          messages: [{ role: "system", content: request.system }, ...request.messages.map(toOpenAIMessage)],
          ...(tools.length > 0 ? { tools } : {}),
        },
        { signal: request.signal },
      );
    } catch (error) {
      throw providerErrorFrom(error, this.label, OpenAI);
    }
    const reply = completion.choices?.[0]?.message;
    if (!reply) throw new ProviderError("invalid_request", "OpenAI: no choice in the answer", { retryable: false });
    const toolCalls = (reply.tool_calls ?? []).filter(
      (call): call is ChatCompletionMessageFunctionToolCall => call.type === "function",
    );
    return {
      message: {
        role: "assistant",
        content: toolCalls.length > 0 ? (reply.content ?? "") : (reply.content ?? reply.refusal ?? ""),
        ...(toolCalls.length > 0
          ? {
              toolCalls: toolCalls.map((call) => ({
                id: call.id,
                name: call.function.name,
                arguments: call.function.arguments,
              })),
            }
          : {}),
      },
      ...(completion.usage
        ? {
            usage: {
              inputTokens: completion.usage.prompt_tokens ?? 0,
              outputTokens: completion.usage.completion_tokens ?? 0,
              ...(completion.usage.prompt_tokens_details?.cached_tokens !== undefined
                ? { cacheReadTokens: completion.usage.prompt_tokens_details.cached_tokens }
                : {}),
            },
          }
        : {}),
    };
  }
}

export function toOpenAIMessage(message: HistoryMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "assistant":
      if (!message.toolCalls?.length) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function" as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

function toOpenAITool(tool: ModelTool): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}
