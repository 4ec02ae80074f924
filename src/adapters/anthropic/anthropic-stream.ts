import type { RawMessageStreamEvent, RefusalStopDetails } from "@anthropic-ai/sdk/resources/messages/messages";
import type { EventSourceMessage } from "eventsource-parser";
import type { ErrorClassification } from "../../protocol/events.ts";
import type { ToolCall } from "../../protocol/messages.ts";
import { ProviderError } from "../errors.ts";
import type { ReadOfStream } from "../server-sent-events.ts";
import type { ModelResponse } from "../types.ts";
import { type AnthropicUsage, tokenUsageOf } from "./anthropic-usage.ts";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.ts";
import { WebSources } from "./web-sources.ts";

/**
 * A streamed Messages API answer as its events arrive: the text, the tool uses (in pieces, by block), the usage, the
 * sources, and the stop reason of `message_delta` (with a refusal's `stop_details`).
 */
export class StreamedMessage {
  private text = "";
  private readonly usage: AnthropicUsage = {};
  private readonly sources = new WebSources();
  /** Tool uses arrive as a start block and then pieces of their JSON input, keyed by the block's index. */
  private readonly toolUses = new Map<number, ToolCall>();
  private stopReason: string | null = null;
  private stopDetails: RefusalStopDetails | null = null;
  /** `message_stop` came: the answer is whole. */
  stopped = false;

  /**
   * Takes in a read's events: the text they added (one delta, see server-sent-events.ts), and an `error` event's
   * failure, classified, after it, or that `message_stop` ended the answer (nothing after it is taken in; the body's
   * end is a read of its own, left off the turn's way). `ping` is skipped.
   */
  read(events: readonly EventSourceMessage[]): ReadOfStream {
    let text = "";
    for (const message of events) {
      if (message.event === "ping") continue;
      if (message.event === "error") return { text, failure: streamFailure(message.data) };
      text += this.apply(JSON.parse(message.data) as RawMessageStreamEvent);
      if (this.stopped) return { text, ended: true };
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
    const toolCalls = [...this.toolUses.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, use]) => ({ ...use, arguments: use.arguments === "" ? "{}" : use.arguments }));
    return {
      message: { role: "assistant", content: this.text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
      finish: mapAnthropicFinishReason(this.stopReason, this.stopDetails),
      usage: tokenUsageOf(this.usage),
    };
  }

  /** Takes one event in; returns the text it added. */
  private apply(event: RawMessageStreamEvent): string {
    let added = "";
    switch (event.type) {
      case "message_start":
        Object.assign(this.usage, event.message.usage);
        break;
      case "content_block_start":
        added = this.startBlock(event.index, event.content_block);
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
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.stopDetails = event.delta.stop_details ?? this.stopDetails;
        this.takeFinalUsage(event.usage);
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

  /**
   * The counts of `message_delta`, which are cumulative and final: its input counts too, which grow past those of
   * `message_start` when the server's tools (a web search) read pages within the call.
   */
  private takeFinalUsage(usage: AnthropicUsage): void {
    for (const key of COUNTS) {
      const count = usage[key];
      if (typeof count === "number") this.usage[key] = count;
    }
    if (usage.server_tool_use) this.usage.server_tool_use = usage.server_tool_use;
  }

  /**
   * A block's start: a tool use is keyed by its index for the pieces of input to come; a text block may open with
   * text and citations. A server search's `server_tool_use` and `web_search_tool_result` blocks are Anthropic's
   * alone: the neutral history keeps the answer and its sources, not them (see WebSources).
   */
  private startBlock(
    index: number,
    block: Extract<RawMessageStreamEvent, { type: "content_block_start" }>["content_block"],
  ): string {
    if (block.type === "tool_use") {
      this.toolUses.set(index, { id: block.id, name: block.name, arguments: "" });
    } else if (block.type === "text") {
      this.sources.add(block.citations);
      return block.text;
    }
    return "";
  }
}

const COUNTS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;

/** Stream errors the API sends mid-answer, by their `error.type`; anything else is a broken transport. */
const STREAM_ERRORS: Record<string, ErrorClassification> = {
  overloaded_error: "overloaded",
  rate_limit_error: "quota",
  authentication_error: "auth",
  permission_error: "auth",
  invalid_request_error: "invalid_request",
};

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
