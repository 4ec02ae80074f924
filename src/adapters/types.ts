import { z } from "zod";
import type { AgentEvent } from "./events.ts";
import { historyMessageSchema } from "./messages.ts";

/** A tool as the model sees it: its name, what it does and a JSON Schema of its arguments. */
export const modelToolSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string().max(4000),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ModelTool = z.infer<typeof modelToolSchema>;

/**
 * The serialisable part of an adapter's input: what the agent container's `POST /run` accepts as JSON.
 * `history` ends with the turn's new user message(s); `sessionId` resumes a provider-side session (claude-agent).
 */
export const adapterPayloadSchema = z.object({
  chatKey: z.string().min(1).max(200),
  model: z.string().min(1).max(200),
  systemPrompt: z.string().max(100_000),
  history: z.array(historyMessageSchema).min(1),
  tools: z.array(modelToolSchema),
  sessionId: z.string().min(1).max(500).optional(),
  /** Where a remote runner sends tool calls back to, and the per-run secret it must present. */
  toolCallback: z.object({ url: z.string().url(), token: z.string().min(16).max(200) }).optional(),
});
export type AdapterPayload = z.infer<typeof adapterPayloadSchema>;

export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** Runs one tool call by name with the model's argument text; never throws. */
export type ToolExecutor = (name: string, argumentsText: string) => Promise<ToolOutcome>;

export interface AdapterInput extends AdapterPayload {
  executeTool: ToolExecutor;
  signal?: AbortSignal;
}

export interface ProviderAdapter {
  /** True when tools run outside this Worker (a container), which then needs `toolCallback` to reach them. */
  readonly runsToolsRemotely?: boolean;
  run(input: AdapterInput): AsyncGenerator<AgentEvent>;
}

/** The loop cap every function-calling adapter honours. */
export const MAX_TOOL_ITERATIONS = 50;
