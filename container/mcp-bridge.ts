import { createSdkMcpServer, type McpSdkServerConfigWithInstance, tool } from "@anthropic-ai/claude-agent-sdk";
import * as z from "zod";
import type { ModelTool } from "../src/protocol/run-payload.ts";
import { callWorkerTool, TOOL_CALL_TIMEOUT_MS, type ToolCallback } from "./worker-tools.ts";

/** The in-process MCP server's name: the model sees the bot's tools as `mcp__bot__<name>`. */
export const BRIDGE_SERVER_NAME = "bot";
export const BRIDGE_TOOL_PREFIX = `mcp__${BRIDGE_SERVER_NAME}__`;

type Shape = Record<string, z.ZodType>;

/**
 * The Worker's tools as the Claude Agent SDK's in-process MCP server. Each call goes back to the Worker
 * (`callWorkerTool`); a failure never throws into the SDK: it becomes an error result the model can read.
 */
export function createToolBridge(
  tools: readonly ModelTool[],
  callback: ToolCallback,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): McpSdkServerConfigWithInstance {
  const timeoutMs = options.timeoutMs ?? TOOL_CALL_TIMEOUT_MS;
  return createSdkMcpServer({
    name: BRIDGE_SERVER_NAME,
    version: "1.0.0",
    // Above our own fetch timeout, so a slow Worker ends in our clean error result rather than the SDK's.
    timeout: timeoutMs + 15_000,
    tools: tools.map((modelTool) =>
      tool(modelTool.name, modelTool.description, shapeOf(modelTool.inputSchema), async (args, extra) =>
        callWorkerTool(callback, modelTool.name, args, { timeoutMs, signals: [options.signal, signalOf(extra)] }),
      ),
    ),
  });
}

function signalOf(extra: unknown): AbortSignal | undefined {
  const signal = (extra as { signal?: unknown } | null | undefined)?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

/**
 * A tool's JSON Schema as the zod raw shape `tool()` takes. zod 4's `z.fromJSONSchema` does the work; when it
 * throws or yields something that is not an object, a small converter covers what our tools use (objects of
 * string / number / integer / boolean / array / enum properties, `required`, descriptions) and anything else is
 * accepted as-is (`z.any()`): the Worker validates the arguments again before it runs the tool.
 */
export function shapeOf(inputSchema: Record<string, unknown>): Shape {
  try {
    const converted = z.fromJSONSchema(inputSchema as z.core.JSONSchema.JSONSchema);
    if (converted instanceof z.ZodObject) return { ...(converted.shape as Shape) };
  } catch {
    // fall through to the small converter
  }
  return fallbackShape(inputSchema);
}

function fallbackShape(schema: Record<string, unknown>): Shape {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === "string") : [],
  );
  const shape: Shape = {};
  for (const [key, property] of Object.entries(properties)) {
    const converted = isRecord(property) ? fallbackType(property) : z.any();
    shape[key] = required.has(key) ? converted : converted.optional();
  }
  return shape;
}

function fallbackType(schema: Record<string, unknown>): z.ZodType {
  let type: z.ZodType;
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((value) => typeof value === "string")) {
    type = z.enum(schema.enum as [string, ...string[]]);
  } else {
    switch (schema.type) {
      case "string":
        type = z.string();
        break;
      case "number":
        type = z.number();
        break;
      case "integer":
        type = z.number().int();
        break;
      case "boolean":
        type = z.boolean();
        break;
      case "array":
        type = z.array(isRecord(schema.items) ? fallbackType(schema.items) : z.any());
        break;
      case "object":
        type = z.object(fallbackShape(schema));
        break;
      default:
        type = z.any();
    }
  }
  return typeof schema.description === "string" ? type.describe(schema.description) : type;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
