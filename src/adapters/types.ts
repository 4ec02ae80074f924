import type { AnthropicSearchTool } from "../config/search-settings.ts";
import type { AgentEvent, FinishReason } from "../protocol/events.ts";
import type { AssistantMessage, HistoryMessage } from "../protocol/messages.ts";
import type { ModelTool, RunPayload, ToolOutcome } from "../protocol/run-payload.ts";
import type { RunAllowance } from "./agent-runs.ts";
import type { MediaLibrary } from "./media-parts.ts";

/**
 * A tool of the bot's own: the model asks for it, and the tool loop runs the call. Its definition is the registry's
 * own object, made once per tool (adapters key their ready JSON by it, see ready-json.ts).
 */
export interface FunctionTool {
  kind: "function";
  definition: ModelTool;
}

/**
 * A tool the provider defines and runs on its own servers within the call, which the tool loop never sees called:
 * Anthropic's web search, at most `maxUses` times (each search billed by Anthropic and counted in the response's
 * `usage.webSearches`). An adapter sends only its own provider's tools and leaves the others out.
 */
export interface ProviderTool {
  kind: "provider";
  id: "anthropic.web_search";
  /** The tool's version, as the provider names its type. */
  version: AnthropicSearchTool;
  maxUses: number;
}

export type RequestTool = FunctionTool | ProviderTool;

/** One model call: the conversation so far, the tools the model may use, and who may cancel it. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: readonly HistoryMessage[];
  tools: readonly RequestTool[];
  /** The files the messages' attachments refer to, loaded (or left out, with why) before the call. */
  media?: MediaLibrary;
  signal?: AbortSignal;
}

export interface TokenUsage {
  /** Every input token, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Searches the provider made on its own servers during the call (each one billed by it). */
  webSearches?: number;
}

/**
 * What one model call produced: the assistant's message (text, and the tools it wants called), how it ended (the
 * provider's reason, mapped) and its cost. A call cut by a limit keeps its tool calls' arguments as they arrived, so
 * that the loop can tell a cut call from a whole one.
 */
export interface ModelResponse {
  message: AssistantMessage;
  finish: FinishReason;
  usage?: TokenUsage;
  /** The model that answered, when it may not be the one asked for (a fallback chain moved on). */
  answeredBy?: { provider: string; model: string };
}

/** A streamed model call: text as it arrives, then the whole response. */
export type ModelStreamPart = { type: "text_delta"; text: string } | { type: "response"; response: ModelResponse };

/**
 * The code for a function-calling provider: it makes one model call, translating the neutral conversation into its
 * API and back. It never loops and never runs tools (`runToolLoop` does, for every such adapter). A failure is thrown
 * as a `ProviderError`, after the SDK's own retries; a stream that breaks off is one too, after what it streamed.
 */
export interface ModelAdapter {
  readonly kind: "model";
  /** The provider's name in messages, e.g. "OpenAI". */
  readonly label: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
  /** The same call, streamed: text deltas as they come, then exactly one `response` part. */
  stream(request: ModelRequest): AsyncGenerator<ModelStreamPart>;
}

/** Runs one tool call by name with the model's argument text; never throws. */
export type ToolExecutor = (name: string, argumentsText: string) => Promise<ToolOutcome>;

/** What an agent adapter runs: the run payload, the tools it may call here, and who may cancel it. */
export interface AgentRunInput extends RunPayload {
  signal?: AbortSignal;
  /** What the run may spend through the model proxy before its calls are refused (what is left of today's budget). */
  allowance?: RunAllowance;
}

/**
 * The code for a provider that owns its loop (`claude-agent`, `codex-agent`: the container runs the Claude Agent SDK
 * or the Codex CLI and calls the bot's tools back through `toolCallback`). It speaks `AgentEvent`s, the same stream
 * `runToolLoop` yields.
 */
export interface AgentAdapter {
  readonly kind: "agent";
  run(input: AgentRunInput): AsyncGenerator<AgentEvent>;
}

export type Adapter = ModelAdapter | AgentAdapter;
