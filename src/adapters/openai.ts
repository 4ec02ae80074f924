import type { EventSourceMessage } from "eventsource-parser";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { HistoryMessage, ToolCall } from "../protocol/messages.ts";
import type { ModelTool } from "../protocol/run-payload.ts";
import { ProviderError, providerErrorFrom } from "./errors.ts";
import { isPlainText, type MediaLibrary, type UserPart, userPartsOf } from "./media-parts.ts";
import { ChatCompletionsClient, type ChatCompletionsClientOptions, chunkOf, OPENAI_ERRORS } from "./openai-client.ts";
import { toolListJson } from "./ready-json.ts";
import { EventStreamBody, type ReadOfStream } from "./server-sent-events.ts";
import type { ModelAdapter, ModelRequest, ModelResponse, ModelStreamPart } from "./types.ts";

export interface OpenAIAdapterOptions extends ChatCompletionsClientOptions {
  /** The provider's name in messages (default "OpenAI"; "Workers AI" for its OpenAI-compatible endpoint). */
  label?: string;
  /** Sent as `max_tokens` when set (Workers AI's models otherwise stop at 256). */
  maxTokens?: number;
}

/**
 * Chat Completions with function calling. Any OpenAI-compatible server works through `baseUrl` (AI Gateway,
 * OpenRouter, Groq, a local server). Retries of 408/409/429/5xx and timeouts are the SDK's policy (see openai-client.ts):
 * bounded exponential backoff (0.5 s doubling to 8 s, with jitter) that waits `retry-after` / `retry-after-ms` when
 * the server sends one.
 */
export class OpenAIAdapter implements ModelAdapter {
  readonly kind = "model";
  readonly label: string;
  private readonly client: ChatCompletionsClient;
  private readonly maxTokens: number | undefined;

  constructor({ label, maxTokens, ...options }: OpenAIAdapterOptions) {
    this.label = label ?? "OpenAI";
    this.maxTokens = maxTokens;
    this.client = new ChatCompletionsClient(options);
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    let completion: ChatCompletion;
    try {
      const { body, ready } = this.body(request);
      completion = await this.client.create(body, request.signal, ready);
    } catch (error) {
      throw providerErrorFrom(error, this.label, OPENAI_ERRORS);
    }
    const reply = completion.choices?.[0]?.message;
    if (!reply)
      throw new ProviderError("invalid_request", `${this.label}: no choice in the answer`, { retryable: false });
    const toolCalls = (reply.tool_calls ?? []).filter(
      (call): call is ChatCompletionMessageFunctionToolCall => call.type === "function",
    );
    return responseOf({
      text: reply.content ?? "",
      refusal: reply.refusal ?? "",
      toolCalls: toolCalls.map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
      usage: completion.usage,
    });
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const answer = new StreamedCompletion();
    try {
      const { body, ready } = this.body(request);
      const response = await this.client.streamed(
        { ...body, stream: true, stream_options: { include_usage: true } },
        request.signal,
        ready,
      );
      const stream = new EventStreamBody(response, request.signal);
      try {
        for (let events = await stream.next(); events !== undefined; events = await stream.next()) {
          const read = answer.read(events, response.headers);
          if (read.text !== "") yield { type: "text_delta", text: read.text };
          if (read.failure !== undefined) throw read.failure;
          if (read.ended) {
            stream.finish();
            break;
          }
        }
      } finally {
        await stream.close();
      }
    } catch (error) {
      throw providerErrorFrom(error, this.label, OPENAI_ERRORS);
    }
    if (!answer.finished)
      throw new ProviderError("transport", `${this.label}: the stream ended before the answer was complete`);
    yield { type: "response", response: answer.response() };
  }

  /** The request's body, and its tools as ready JSON (made once per tool, see ready-json.ts). */
  private body(request: ModelRequest) {
    const body = {
      model: request.model,
      messages: [
        { role: "system" as const, content: request.system },
        ...request.messages.map((message) => toOpenAIMessage(message, request.media)),
      ] satisfies ChatCompletionMessageParam[],
      ...(this.maxTokens === undefined ? {} : { max_tokens: this.maxTokens }),
    };
    return { body, ready: request.tools.length > 0 ? { tools: openAIToolsJson(request.tools) } : undefined };
  }
}

/** A streamed answer as its chunks arrive: the text, the refusal, the tool calls (in pieces, by index), the usage. */
class StreamedCompletion {
  private text = "";
  private refusal = "";
  private usage: CompletionUsage | undefined;
  private readonly calls = new Map<number, ToolCall>();
  /** A choice said why it ended: the answer is whole. */
  finished = false;

  /**
   * Takes in a read's events: the text they added (one delta, see server-sent-events.ts), and an `error` event's
   * failure after it, or that `[DONE]` ended the answer (nothing after it is taken in).
   */
  read(events: readonly EventSourceMessage[], headers: Headers): ReadOfStream {
    let text = "";
    for (const event of events) {
      let chunk: ChatCompletionChunk | undefined;
      try {
        chunk = chunkOf(event.data, headers);
      } catch (failure) {
        return { text, failure };
      }
      if (chunk === undefined) return { text, ended: true };
      text += this.apply(chunk);
    }
    return { text };
  }

  /** Takes one chunk in; returns the text it added. */
  private apply(chunk: ChatCompletionChunk): string {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return "";
    if (choice.finish_reason) this.finished = true;
    const delta = choice.delta;
    if (delta?.refusal) this.refusal += delta.refusal;
    for (const piece of delta?.tool_calls ?? []) {
      const call = this.calls.get(piece.index) ?? { id: "", name: "", arguments: "" };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
      this.calls.set(piece.index, call);
    }
    const added = delta?.content ?? "";
    this.text += added;
    return added;
  }

  response(): ModelResponse {
    const toolCalls = [...this.calls.entries()].sort(([left], [right]) => left - right).map(([, call]) => call);
    return responseOf({ text: this.text, refusal: this.refusal, toolCalls, usage: this.usage });
  }
}

/** The neutral response: the text (or the refusal, when there is nothing else), the tool calls, the usage. */
function responseOf(reply: {
  text: string;
  refusal: string;
  toolCalls: ToolCall[];
  usage: CompletionUsage | undefined | null;
}): ModelResponse {
  const hasCalls = reply.toolCalls.length > 0;
  const cached = reply.usage?.prompt_tokens_details?.cached_tokens;
  return {
    message: {
      role: "assistant",
      content: hasCalls || reply.text !== "" ? reply.text : reply.refusal,
      ...(hasCalls ? { toolCalls: reply.toolCalls } : {}),
    },
    ...(reply.usage
      ? {
          usage: {
            inputTokens: reply.usage.prompt_tokens ?? 0,
            outputTokens: reply.usage.completion_tokens ?? 0,
            ...(typeof cached === "number" ? { cacheReadTokens: cached } : {}),
          },
        }
      : {}),
  };
}

export function toOpenAIMessage(message: HistoryMessage, media?: MediaLibrary): ChatCompletionMessageParam {
  switch (message.role) {
    case "user":
      if (isPlainText(message)) return { role: "user", content: message.content };
      return { role: "user", content: userPartsOf(message, media).map(toOpenAIPart) };
    case "assistant":
      if (!message.toolCalls?.length) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function" as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

/** Images as data URLs (`image_url`), PDFs as inline file inputs (`file` with `file_data`). */
function toOpenAIPart(part: UserPart): ChatCompletionContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${part.base64}` } };
    case "pdf":
      return {
        type: "file",
        file: { filename: part.fileName, file_data: `data:application/pdf;base64,${part.base64}` },
      };
  }
}

const openAIToolsJson = toolListJson(toOpenAITool);

function toOpenAITool(tool: ModelTool): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}
