import type { Message, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ToolCall } from "../../protocol/messages.ts";
import type { ModelResponse } from "../types.ts";
import { tokenUsageOf } from "./anthropic-usage.ts";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.ts";
import { WebSources } from "./web-sources.ts";

/**
 * A whole (unstreamed) Messages API answer as the neutral response: its text with the sources line of a searched
 * answer, its tool uses, how it ended and its usage. Server tool blocks are Anthropic's alone (see WebSources).
 */
export function responseOfMessage(reply: Message): ModelResponse {
  const content = Array.isArray(reply.content) ? reply.content : [];
  const sources = new WebSources();
  for (const block of content) if (block.type === "text") sources.add(block.citations);
  const text = content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const toolCalls: ToolCall[] = content
    .filter((block): block is ToolUseBlock => block.type === "tool_use")
    .map((use) => ({ id: use.id, name: use.name, arguments: JSON.stringify(use.input ?? {}) }));
  return {
    message: {
      role: "assistant",
      content: text === "" ? text : text + sources.line(),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    },
    finish: mapAnthropicFinishReason(reply.stop_reason, reply.stop_details),
    usage: tokenUsageOf(reply.usage),
  };
}
