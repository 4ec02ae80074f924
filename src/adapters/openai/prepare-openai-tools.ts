import type { ChatCompletionTool } from "openai/resources/chat/completions";
import type { ModelTool } from "../../protocol/run-payload.ts";
import { type ReadyJson, toolListJson } from "../ready-json.ts";
import type { FunctionTool, RequestTool } from "../types.ts";

const functionToolsJson = toolListJson(toOpenAITool);

/**
 * A call's tools as Chat Completions takes them, as ready JSON (made once per tool, see ready-json.ts): the bot's own
 * as functions. Chat Completions runs no provider tool of the ones a request may carry (Anthropic's): they are left
 * out, and with no function left the request names no tools.
 */
export function openAIToolsJson(tools: readonly RequestTool[]): ReadyJson | undefined {
  const functions = tools.filter((tool): tool is FunctionTool => tool.kind === "function");
  return functions.length > 0 ? { tools: functionToolsJson(functions.map((tool) => tool.definition)) } : undefined;
}

function toOpenAITool(tool: ModelTool): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}
