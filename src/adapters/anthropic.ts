import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk/core/error";
import type {
  CitationsWebSearchResultLocation,
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextCitation,
  Tool,
  ToolUnion,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { EventSourceMessage } from "eventsource-parser";
import type { ErrorClassification } from "../protocol/events.ts";
import { type HistoryMessage, parseToolArguments, type ToolCall } from "../protocol/messages.ts";
import type { ModelTool } from "../protocol/run-payload.ts";
import { ProviderError, providerErrorFrom } from "./errors.ts";
import { isPlainText, type MediaLibrary, type UserPart, userPartsOf } from "./media-parts.ts";
import { ModelHttp, type SdkErrors } from "./model-http.ts";
import { EventStreamBody, type ReadOfStream } from "./server-sent-events.ts";
import type { ModelAdapter, ModelRequest, ModelResponse, ModelStreamPart } from "./types.ts";

export interface AnthropicAdapterOptions {
  apiKey: string;
  baseUrl?: string;
  maxRetries: number;
  timeoutMs: number;
  maxOutputTokens?: number;
  /** How the request goes out; default the global `fetch`. */
  fetch?: typeof fetch;
}

const CACHE = { type: "ephemeral" } as const;

/** The SDK's error classes: a failed call throws what the SDK's own client would. */
const ERRORS: SdkErrors = { APIError, APIUserAbortError, APIConnectionTimeoutError, APIConnectionError };

/**
 * The Messages API with tool use, with the SDK's wire types and error classes over `ModelHttp` (the SDK's retry
 * policy: 408/409/429/5xx, 529 overloaded, timeouts, `retry-after`). Even `BaseAnthropic` with only the Messages
 * resource pulled in its batches, tool runners, tracing and OpenTelemetry: 35 KiB gzip of bundle for one call. The
 * system prompt and the tool definitions are marked cacheable, since every call of a turn repeats them.
 */
export class AnthropicAdapter implements ModelAdapter {
  readonly kind = "model";
  readonly label = "Anthropic";
  private readonly http: ModelHttp;
  private readonly maxOutputTokens: number;

  constructor(options: AnthropicAdapterOptions) {
    this.http = new ModelHttp({
      url: `${(options.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "")}/v1/messages`,
      headers: { "x-api-key": options.apiKey, "anthropic-version": "2023-06-01" },
      maxRetries: options.maxRetries,
      timeoutMs: options.timeoutMs,
      errors: ERRORS,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.maxOutputTokens = options.maxOutputTokens ?? 4096;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    let reply: Message;
    try {
      reply = (await (await this.http.post(this.body(request), request.signal)).json()) as Message;
    } catch (error) {
      throw providerErrorFrom(error, this.label, ERRORS);
    }
    const content = Array.isArray(reply.content) ? reply.content : [];
    const sources = new WebSources();
    for (const block of content) if (block.type === "text") sources.add(block.citations);
    const text = content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    return responseOf(
      text === "" ? text : text + sources.line(),
      content
        .filter((block): block is ToolUseBlock => block.type === "tool_use")
        .map((use) => ({ id: use.id, name: use.name, arguments: JSON.stringify(use.input ?? {}) })),
      reply.usage,
    );
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const answer = new StreamedMessage();
    try {
      const response = await this.http.post({ ...this.body(request), stream: true }, request.signal);
      const stream = new EventStreamBody(response, request.signal);
      try {
        for (let events = await stream.next(); events !== undefined; events = await stream.next()) {
          const read = answer.read(events);
          if (read.text !== "") yield { type: "text_delta", text: read.text };
          if (read.failure !== undefined) throw read.failure;
        }
      } finally {
        await stream.close();
      }
    } catch (error) {
      throw providerErrorFrom(error, this.label, ERRORS);
    }
    if (!answer.stopped)
      throw new ProviderError("transport", "Anthropic: the stream ended before the answer was complete");
    const line = answer.sourcesLine();
    if (line !== "") yield { type: "text_delta", text: line };
    yield { type: "response", response: answer.response() };
  }

  private body(request: ModelRequest) {
    const search = request.serverWebSearch;
    const tools: ToolUnion[] = [
      ...toAnthropicTools(request.tools),
      // Anthropic runs these searches itself, within this call, and bills each one (usage.server_tool_use).
      ...(search && search.maxUses > 0
        ? [{ type: search.toolType, name: "web_search" as const, max_uses: search.maxUses }]
        : []),
    ];
    return {
      model: request.model,
      max_tokens: this.maxOutputTokens,
      system: [{ type: "text" as const, text: request.system, cache_control: CACHE }],
      messages: toAnthropicMessages(request.messages, request.media),
      ...(tools.length > 0 ? { tools } : {}),
    } satisfies MessageCreateParamsNonStreaming;
  }
}

/** Token counts as the API reports them; the cache fields may be missing or null. */
interface UsageCounts {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  server_tool_use?: { web_search_requests?: number | null } | null;
}

function responseOf(text: string, toolCalls: ToolCall[], usage: UsageCounts | undefined): ModelResponse {
  const cacheRead = usage?.cache_read_input_tokens ?? 0;
  const cacheWrite = usage?.cache_creation_input_tokens ?? 0;
  const webSearches = usage?.server_tool_use?.web_search_requests ?? 0;
  return {
    message: { role: "assistant", content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
    usage: {
      inputTokens: (usage?.input_tokens ?? 0) + cacheRead + cacheWrite,
      outputTokens: usage?.output_tokens ?? 0,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      ...(webSearches > 0 ? { webSearches } : {}),
    },
  };
}

const MAX_SOURCES = 5;

/**
 * The pages a server-searched answer cites. History stays provider-neutral, so the search's own blocks (whose page
 * text only Anthropic can read) are not kept; the answer keeps its sources as a line of Markdown links instead, which
 * the person sees and any provider reads later.
 */
class WebSources {
  private readonly pages = new Map<string, string>();

  add(citations: readonly TextCitation[] | null | undefined): void {
    for (const citation of citations ?? []) {
      if (!isWebCitation(citation) || this.pages.size >= MAX_SOURCES || this.pages.has(citation.url)) continue;
      if (/^https?:\/\//i.test(citation.url)) this.pages.set(citation.url, citation.title ?? citation.url);
    }
  }

  /** "\n\nSources: [title](url), …", or nothing when no page was cited. */
  line(): string {
    if (this.pages.size === 0) return "";
    const links = [...this.pages].map(
      ([url, title]) => `[${title.replace(/[[\]]/g, "")}](${url.replace(/\)/g, "%29")})`,
    );
    return `\n\nSources: ${links.join(", ")}`;
  }
}

function isWebCitation(citation: TextCitation): citation is CitationsWebSearchResultLocation {
  return citation.type === "web_search_result_location";
}

/**
 * Neutral history to Messages API turns: tool calls become `tool_use` blocks, tool results `tool_result` blocks in a
 * user turn, and neighbouring messages of one role are merged, since the API wants the roles to alternate.
 */
export function toAnthropicMessages(history: readonly HistoryMessage[], media?: MediaLibrary): MessageParam[] {
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
        if (isPlainText(message)) {
          add("user", message.content.trim() === "" ? [] : [{ type: "text", text: message.content }]);
        } else {
          add("user", userPartsOf(message, media).flatMap(toAnthropicBlock));
        }
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

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;
type AnthropicImageType = (typeof IMAGE_TYPES)[number];

function isAnthropicImageType(mediaType: string): mediaType is AnthropicImageType {
  return (IMAGE_TYPES as readonly string[]).includes(mediaType);
}

/** Images as base64 image blocks, PDFs as base64 document blocks; an image type the API does not take says so. */
function toAnthropicBlock(part: UserPart): ContentBlockParam[] {
  switch (part.type) {
    case "text":
      return part.text.trim() === "" ? [] : [{ type: "text", text: part.text }];
    case "image":
      if (!isAnthropicImageType(part.mediaType)) {
        return [{ type: "text", text: `[an image in ${part.mediaType}, a format this model does not read]` }];
      }
      return [{ type: "image", source: { type: "base64", media_type: part.mediaType, data: part.base64 } }];
    case "pdf":
      return [
        {
          type: "document",
          title: part.fileName,
          source: { type: "base64", media_type: "application/pdf", data: part.base64 },
        },
      ];
  }
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

/** Stream errors the API sends mid-answer, by their `error.type`; anything else is a broken transport. */
const STREAM_ERRORS: Record<string, ErrorClassification> = {
  overloaded_error: "overloaded",
  rate_limit_error: "quota",
  authentication_error: "auth",
  permission_error: "auth",
  invalid_request_error: "invalid_request",
};

/** A streamed message as its events arrive: the text, the tool uses (in pieces, by block), the usage, the sources. */
class StreamedMessage {
  private text = "";
  private readonly usage: UsageCounts = {};
  private readonly sources = new WebSources();
  /** Tool uses arrive as a start block and then pieces of their JSON input, keyed by the block's index. */
  private readonly toolUses = new Map<number, ToolCall>();
  /** `message_stop` came: the answer is whole. */
  stopped = false;

  /**
   * Takes in a read's events: the text they added (one delta, see server-sent-events.ts), and an `error` event's
   * failure, classified, after it. `ping` is skipped.
   */
  read(events: readonly EventSourceMessage[]): ReadOfStream {
    let text = "";
    for (const message of events) {
      if (message.event === "ping") continue;
      if (message.event === "error") return { text, failure: streamFailure(message.data) };
      text += this.apply(JSON.parse(message.data) as RawMessageStreamEvent);
    }
    return { text };
  }

  /** The sources line under a searched answer (added to its text), or "" when there is none or no text. */
  sourcesLine(): string {
    const line = this.text === "" ? "" : this.sources.line();
    this.text += line;
    return line;
  }

  response(): ModelResponse {
    const calls = [...this.toolUses.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, use]) => ({ ...use, arguments: use.arguments === "" ? "{}" : use.arguments }));
    return responseOf(this.text, calls, this.usage);
  }

  /** Takes one event in; returns the text it added. */
  private apply(event: RawMessageStreamEvent): string {
    let added = "";
    switch (event.type) {
      case "message_start":
        Object.assign(this.usage, event.message.usage);
        break;
      case "content_block_start":
        if (event.content_block.type === "tool_use") {
          const { id, name } = event.content_block;
          this.toolUses.set(event.index, { id, name, arguments: "" });
        } else if (event.content_block.type === "text") {
          this.sources.add(event.content_block.citations);
          added = event.content_block.text;
        }
        // A server search's `server_tool_use` and `web_search_tool_result` blocks are Anthropic's alone: the neutral
        // history keeps the answer and its sources, not them (see WebSources).
        break;
      case "content_block_delta":
        if (event.delta.type === "text_delta") {
          added = event.delta.text;
        } else if (event.delta.type === "input_json_delta") {
          const use = this.toolUses.get(event.index);
          if (use) use.arguments += event.delta.partial_json;
        } else if (event.delta.type === "citations_delta") {
          this.sources.add([event.delta.citation]);
        }
        break;
      case "message_delta":
        if (event.usage.output_tokens !== undefined && event.usage.output_tokens !== null) {
          this.usage.output_tokens = event.usage.output_tokens;
        }
        if (event.usage.server_tool_use) this.usage.server_tool_use = event.usage.server_tool_use;
        break;
      case "message_stop":
        this.stopped = true;
        break;
      default:
        break;
    }
    this.text += added;
    return added;
  }
}

/** The classified error an `error` event of the Messages stream stands for. */
function streamFailure(data: string): ProviderError {
  const type = errorTypeOf(data);
  return new ProviderError(STREAM_ERRORS[type] ?? "transport", `Anthropic: the stream failed (${type})`);
}

function errorTypeOf(data: string): string {
  try {
    const body: unknown = JSON.parse(data);
    if (typeof body === "object" && body !== null && "error" in body) {
      const { error } = body;
      if (typeof error === "object" && error !== null && "type" in error && typeof error.type === "string") {
        return error.type.slice(0, 60);
      }
    }
  } catch {
    // Not JSON: an unknown error.
  }
  return "unknown_error";
}
