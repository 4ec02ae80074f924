import type { AnthropicSearchTool } from "../config/search-settings.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { AssistantMessage, HistoryMessage } from "../protocol/messages.ts";
import type { ModelTool, RunPayload, ToolOutcome } from "../protocol/run-payload.ts";
import type { RunAllowance } from "./agent-runs.ts";
import type { MediaLibrary } from "./media-parts.ts";

/** One model call: the conversation so far, the tools the model may call, and who may cancel it. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: readonly HistoryMessage[];
  tools: readonly ModelTool[];
  /** The files the messages' attachments refer to, loaded (or left out, with why) before the call. */
  media?: MediaLibrary;
  /**
   * A web search the provider runs on its own servers during the call, at most `maxUses` times: Anthropic's adapter
   * offers its server tool; others ignore it. Searches made are counted in the response's `usage.webSearches`.
   */
  serverWebSearch?: { toolType: AnthropicSearchTool; maxUses: number };
  signal?: AbortSignal;
}

interface TokenUsage {
  /** Every input token, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Searches the provider made on its own servers during the call (each one billed by it). */
  webSearches?: number;
}

/** What one model call produced: the assistant's message (text, and the tools it wants called) and its cost. */
export interface ModelResponse {
  message: AssistantMessage;
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
