import type { Tool, ToolUnion } from "@anthropic-ai/sdk/resources/messages/messages";
import { assertNever } from "../../lib/errors.ts";
import type { FunctionTool, ProviderTool, RequestTool } from "../types.ts";

const CACHE = { type: "ephemeral" } as const;

/**
 * A call's tools as the Messages API takes them: the bot's own as custom tools (the last one marked cacheable, which
 * caches the whole list, since every call of a turn repeats it), then Anthropic's server tools. A server web search
 * allowed no uses is left out.
 */
export function toAnthropicTools(tools: readonly RequestTool[]): ToolUnion[] {
  const functions = tools.filter((tool): tool is FunctionTool => tool.kind === "function");
  const custom: Tool[] = functions.map(({ definition }, index) => ({
    name: definition.name,
    description: definition.description,
    input_schema: { type: "object", ...definition.inputSchema } as Tool["input_schema"],
    ...(index === functions.length - 1 ? { cache_control: CACHE } : {}),
  }));
  const server = tools.flatMap((tool) => (tool.kind === "provider" ? toServerTool(tool) : []));
  return [...custom, ...server];
}

/** Anthropic runs these within the call and bills each use (`usage.server_tool_use`). */
function toServerTool(tool: ProviderTool): ToolUnion[] {
  switch (tool.id) {
    case "anthropic.web_search":
      return tool.maxUses > 0 ? [{ type: tool.version, name: "web_search", max_uses: tool.maxUses }] : [];
    default:
      return assertNever(tool.id, "provider tool");
  }
}
