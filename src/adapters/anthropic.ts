import Anthropic from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  Message,
  MessageParam,
  Tool,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { type HistoryMessage, parseToolArguments } from "../protocol/messages.ts";
import type { ModelTool } from "../protocol/run-payload.ts";
import { providerErrorFrom } from "./errors.ts";
import type { ModelAdapter, ModelRequest, ModelResponse } from "./types.ts";

export interface AnthropicAdapterOptions {
  apiKey: string;
  baseUrl?: string;
  maxRetries: number;
  timeoutMs: number;
  maxOutputTokens?: number;
}

const CACHE = { type: "ephemeral" } as const;

/**
 * The Messages API with tool use. The system prompt and the tool definitions are marked cacheable, since every call
 * of a turn repeats them. Retries (408/409/429/5xx, 529 overloaded, timeouts) are the SDK's: bounded exponential
 * backoff that waits `retry-after` when the API sends one.
 */
export class AnthropicAdapter implements ModelAdapter {
  readonly kind = "model";
  readonly label = "Anthropic";
  private readonly client: Anthropic;
  private readonly maxOutputTokens: number;

  constructor(options: AnthropicAdapterOptions) {
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseUrl ?? null,
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
    });
    this.maxOutputTokens = options.maxOutputTokens ?? 4096;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const tools = toAnthropicTools(request.tools);
    let reply: Message;
    try {
      reply = await this.client.messages.create(
        {
          model: request.model,
          max_tokens: this.maxOutputTokens,
          system: [{ type: "text", text: request.system, cache_control: CACHE }],
          messages: toAnthropicMessages(request.messages),
          ...(tools.length > 0 ? { tools } : {}),
        },
        { signal: request.signal },
      );
    } catch (error) {
      throw providerErrorFrom(error, this.label, Anthropic);
    }
    const content = Array.isArray(reply.content) ? reply.content : [];
    const text = content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("");
    const toolUses = content.filter((block): block is ToolUseBlock => block.type === "tool_use");
    const cacheRead = reply.usage?.cache_read_input_tokens ?? 0;
    const cacheWrite = reply.usage?.cache_creation_input_tokens ?? 0;
    return {
      message: {
        role: "assistant",
        content: text,
        ...(toolUses.length > 0
          ? {
              toolCalls: toolUses.map((use) => ({
                id: use.id,
                name: use.name,
                arguments: JSON.stringify(use.input ?? {}),
              })),
            }
          : {}),
      },
      usage: {
        inputTokens: (reply.usage?.input_tokens ?? 0) + cacheRead + cacheWrite,
        outputTokens: reply.usage?.output_tokens ?? 0,
        cacheReadTokens: cacheRead,
        cacheWriteTokens: cacheWrite,
      },
    };
  }
}

/**
 * Neutral history to Messages API turns: tool calls become `tool_use` blocks, tool results `tool_result` blocks in a
 * user turn, and neighbouring messages of one role are merged, since the API wants the roles to alternate.
 */
export function toAnthropicMessages(history: readonly HistoryMessage[]): MessageParam[] {
  const turns: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  const add = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) {
      // tool_result blocks must open a user turn, before any text.
      const results = blocks.filter((block) => block.type === "tool_result");
      const others = blocks.filter((block) => block.type !== "tool_result");
      const firstText = last.content.findIndex((block) => block.type !== "tool_result");
      if (results.length > 0 && firstText >= 0) last.content.splice(firstText, 0, ...results);
      else last.content.push(...results);
      last.content.push(...others);
    } else {
      turns.push({ role, content: [...blocks] });
    }
  };
  for (const message of history) {
    switch (message.role) {
      case "user":
        add("user", message.content.trim() === "" ? [] : [{ type: "text", text: message.content }]);
        break;
      case "assistant": {
        const blocks: ContentBlockParam[] =
          message.content.trim() === "" ? [] : [{ type: "text", text: message.content }];
        for (const call of message.toolCalls ?? []) {
          blocks.push({
            type: "tool_use",
            id: anthropicId(call.id),
            name: call.name,
            input: parseToolArguments(call.arguments),
          });
        }
        add("assistant", blocks);
        break;
      }
      case "tool":
        add("user", [
          {
            type: "tool_result",
            tool_use_id: anthropicId(message.toolCallId),
            content: message.content,
            ...(message.isError ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  return turns;
}

/** Tool call ids from other providers may hold characters the Messages API refuses; map them the same way twice. */
function anthropicId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_");
}

function toAnthropicTools(tools: readonly ModelTool[]): Tool[] {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.inputSchema } as Tool["input_schema"],
    // One breakpoint after the last tool caches the whole list.
    ...(index === tools.length - 1 ? { cache_control: CACHE } : {}),
  }));
}
