import type { CalledTool } from "./connection.ts";

/** One MCP call's result is cut here (as `web_fetch` cuts a page); the turn's TOOL_RESULTS_MAX_CHARS applies too. */
export const MAX_MCP_RESULT_CHARS = 20_000;

/** A server's result as the text a model reads: text blocks as they are, other blocks named, never their bytes. */
export function resultText(result: CalledTool): string {
  const parts: string[] = [];
  for (const block of result.content) {
    switch (block.type) {
      case "text":
        parts.push(typeof block.text === "string" ? block.text : "");
        break;
      case "image":
      case "audio":
        parts.push(`[${block.type} (${String(block.mimeType ?? "unknown type")}) not shown]`);
        break;
      case "resource_link":
        parts.push(`[resource: ${String(block.uri ?? "")}]`);
        break;
      case "resource": {
        const resource = block.resource as { uri?: unknown; text?: unknown } | undefined;
        parts.push(typeof resource?.text === "string" ? resource.text : `[resource: ${String(resource?.uri ?? "")}]`);
        break;
      }
      default:
        parts.push(`[${String(block.type)} content not shown]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join("\n").trim() || "(the tool returned nothing)";
  return text.length <= MAX_MCP_RESULT_CHARS
    ? text
    : `${text.slice(0, MAX_MCP_RESULT_CHARS)}\n\n[truncated at ${MAX_MCP_RESULT_CHARS} characters]`;
}
