import OpenAI from "openai";
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { errorEventFrom } from "./errors.ts";
import { type AgentEvent, toolPreview } from "./events.ts";
import type { AssistantMessage, HistoryMessage, ToolResultMessage } from "./messages.ts";
import { type AdapterInput, MAX_TOOL_ITERATIONS, type ModelTool, type ProviderAdapter } from "./types.ts";

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
export class OpenAIAdapter implements ProviderAdapter {
  private readonly client: OpenAI;

  constructor(options: OpenAIAdapterOptions) {
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseUrl,
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
    });
  }

  async *run(input: AdapterInput): AsyncGenerator<AgentEvent> {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: input.systemPrompt },
      ...input.history.map(toOpenAIMessage),
    ];
    const tools = input.tools.map(toOpenAITool);

    for (let iteration = 0; iteration < MAX_TOOL_ITERATIONS; iteration++) {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await this.client.chat.completions.create(
          { model: input.model, messages, ...(tools.length > 0 ? { tools } : {}) },
          { signal: input.signal },
        );
      } catch (error) {
        yield errorEventFrom(error, "OpenAI", OpenAI);
        return;
      }
      if (completion.usage) {
        yield {
          type: "usage",
          inputTokens: completion.usage.prompt_tokens ?? 0,
          outputTokens: completion.usage.completion_tokens ?? 0,
          cacheReadTokens: completion.usage.prompt_tokens_details?.cached_tokens ?? undefined,
        };
      }
      const reply = completion.choices?.[0]?.message;
      if (!reply) {
        yield {
          type: "error",
          classification: "invalid_request",
          retryable: false,
          message: "OpenAI: no choice in the answer",
        };
        return;
      }
      const toolCalls = (reply.tool_calls ?? []).filter(
        (call): call is ChatCompletionMessageFunctionToolCall => call.type === "function",
      );
      if (toolCalls.length === 0) {
        yield { type: "result", text: reply.content ?? reply.refusal ?? "" };
        return;
      }

      const assistant: AssistantMessage = {
        role: "assistant",
        content: reply.content ?? "",
        toolCalls: toolCalls.map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        })),
      };
      yield { type: "message", message: assistant };
      messages.push(toOpenAIMessage(assistant));

      for (const call of toolCalls) {
        yield { type: "tool_start", toolName: call.function.name, preview: toolPreview(call.function.arguments) };
        const outcome = await input.executeTool(call.function.name, call.function.arguments);
        const result: ToolResultMessage = {
          role: "tool",
          toolCallId: call.id,
          toolName: call.function.name,
          content: outcome.content,
          ...(outcome.isError ? { isError: true } : {}),
        };
        yield { type: "message", message: result };
        messages.push(toOpenAIMessage(result));
      }
    }
    yield {
      type: "error",
      classification: "internal",
      retryable: false,
      message: `stopped after ${MAX_TOOL_ITERATIONS} model calls without a final answer`,
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
