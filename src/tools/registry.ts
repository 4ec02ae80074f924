import * as z from "zod";
import { allowlistAllows } from "../config/mcp-servers.ts";
import type { Settings } from "../config/settings.ts";
import { errorText } from "../lib/errors.ts";
import { describeIssues } from "../protocol/issues.ts";
import type { ModelTool, ToolOutcome } from "../protocol/run-payload.ts";
import type { ToolContext } from "./context.ts";
import { type OutwardSend, outwardHold } from "./outward-policy.ts";

interface ToolResult {
  content: string;
  isError?: boolean;
}

/** A tool, defined once: the zod schema is the single source of truth for what the model may pass. */
export interface ToolDefinition<Schema extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  schema: Schema;
  handler: (args: z.infer<Schema>, context: ToolContext) => Promise<ToolResult>;
  /** Whether the deployment offers the tool at all (a setting can turn it off); default: always. */
  available?: (settings: Settings) => boolean;
  /**
   * For a call that acts beyond the turn's answer (another chat, scheduled work, config): what it would do, in words.
   * Such a call in a turn that has read content from outside the chat runs only once the person confirms it.
   */
  actsBeyondTheAnswer?: (args: z.infer<Schema>, context: ToolContext) => string | undefined;
  /** For a call that carries data to a place the model chose: where, and what (the data-out rule, outward-policy.ts). */
  sendsOut?: (args: z.infer<Schema>) => OutwardSend;
}

/**
 * A tool with its argument type erased: it checks raw arguments against its own schema before running. The bot's
 * own tools are `defineTool`s (zod); a chat's MCP tools (src/mcp/) carry their server's JSON Schema instead.
 */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** The arguments' JSON Schema, as the model sees it. */
  inputSchema(): Record<string, unknown>;
  available(settings: Settings): boolean;
  invoke(
    raw: unknown,
    context: ToolContext,
  ): Promise<{ kind: "invalid"; problem: string } | { kind: "ran"; result: ToolResult }>;
}

export function defineTool<Schema extends z.ZodObject>(definition: ToolDefinition<Schema>): Tool {
  let inputSchema: Record<string, unknown> | undefined;
  return {
    name: definition.name,
    description: definition.description,
    inputSchema() {
      if (!inputSchema) {
        const { $schema: _ignored, ...converted } = z.toJSONSchema(definition.schema) as Record<string, unknown>;
        inputSchema = converted;
      }
      return inputSchema;
    },
    available: (settings) => definition.available?.(settings) ?? true,
    async invoke(raw, context) {
      const parsed = definition.schema.safeParse(raw);
      if (!parsed.success) return { kind: "invalid", problem: describeIssues(parsed.error) };
      const source = context.trust.untrustedSource;
      const action = source === undefined ? undefined : definition.actsBeyondTheAnswer?.(parsed.data, context);
      if (source !== undefined && action !== undefined) {
        return {
          kind: "ran",
          result: await heldForConfirmation(definition.name, parsed.data, { action, source }, context),
        };
      }
      const outward = definition.sendsOut && outwardHold(context.trust, definition.sendsOut(parsed.data));
      if (outward) {
        return { kind: "ran", result: await heldForConfirmation(definition.name, parsed.data, outward, context) };
      }
      return { kind: "ran", result: await definition.handler(parsed.data, context) };
    },
  };
}

/**
 * A call the turn may not make on its own: the person is asked to confirm it (a button only they or an admin can
 * press), or, where nobody can be asked, it is refused with the reason. Either way the model is told why.
 */
export async function heldForConfirmation(
  name: string,
  args: unknown,
  why: { action: string; source: string },
  context: ToolContext,
): Promise<ToolResult> {
  const reason = `this conversation holds content from outside the chat (${why.source})`;
  if (!context.confirm) {
    throw new ToolError(
      `Not done: ${reason}, so "${why.action}" needs the person's confirmation, and none can be asked here.`,
    );
  }
  return {
    content: await context.confirm({
      tool: name,
      argumentsText: JSON.stringify(args),
      summary: why.action,
      source: why.source,
    }),
  };
}

/** A refusal or a failure, returned to the model as an error result rather than thrown into the loop. */
export class ToolError extends Error {
  override readonly name = "ToolError";
}

/** The model-facing form of each tool, computed once per tool. */
const modelTools = new WeakMap<Tool, ModelTool>();

export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`tool ${tool.name} is defined twice`);
      this.byName.set(tool.name, tool);
    }
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** This registry plus a chat's own tools (its MCP servers'), for one turn. */
  extendedWith(extra: readonly Tool[]): ToolRegistry {
    return extra.length === 0 ? this : new ToolRegistry([...this.byName.values(), ...extra]);
  }

  /** The tools a chat may use: those the deployment offers, narrowed to its config's allowlist if it has one. */
  allowed(allowlist: readonly string[] | undefined, settings: Settings): Tool[] {
    return [...this.byName.values()].filter(
      (tool) => tool.available(settings) && allowlistAllows(allowlist, tool.name),
    );
  }

  /** The model-facing form (JSON Schema), computed once per tool. */
  modelTool(tool: Tool): ModelTool {
    let converted = modelTools.get(tool);
    if (!converted) {
      converted = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema() };
      modelTools.set(tool, converted);
    }
    return converted;
  }

  /**
   * Runs one call from a model. Unknown or disallowed tools, argument text that is not JSON, arguments the schema
   * refuses and handlers that throw all come back as an error result: the turn goes on.
   */
  async execute(
    name: string,
    argumentsText: string,
    context: ToolContext,
    allowlist: readonly string[] | undefined,
  ): Promise<ToolOutcome> {
    const tool = this.byName.get(name);
    if (!tool) return failure(`Unknown tool "${name}". Available: ${this.names.join(", ")}.`);
    if (!allowlistAllows(allowlist, name) || !tool.available(context.settings)) {
      return failure(`The tool "${name}" is not enabled in this chat.`);
    }
    let raw: unknown;
    try {
      raw = argumentsText.trim() === "" ? {} : JSON.parse(argumentsText);
    } catch {
      return failure(`The arguments for "${name}" are not valid JSON.`);
    }
    try {
      const outcome = await tool.invoke(raw, context);
      if (outcome.kind === "invalid") {
        return failure(`Invalid arguments for "${name}": ${outcome.problem}`);
      }
      const result = outcome.result;
      return result.isError === true ? failure(result.content) : { content: result.content, isError: false };
    } catch (error) {
      if (error instanceof ToolError) return failure(error.message);
      console.error(`tool ${name} failed`, errorText(error));
      return failure(`The tool "${name}" failed: ${errorText(error)}`);
    }
  }
}

/** Error results start with "Error:" so that a model whose API has no error flag (OpenAI) still sees it. */
function failure(text: string): ToolOutcome {
  return { isError: true, content: text.startsWith("Error:") ? text : `Error: ${text}` };
}
