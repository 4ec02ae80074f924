import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk/core/error";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import { ProviderError, providerErrorFrom } from "../errors.ts";
import { ModelHttp, type SdkErrors } from "../model-http.ts";
import { EventStreamBody } from "../server-sent-events.ts";
import type { ModelAdapter, ModelRequest, ModelResponse, ModelStreamPart } from "../types.ts";
import { StreamedMessage } from "./anthropic-stream.ts";
import { toAnthropicMessages } from "./convert-to-anthropic-messages.ts";
import { toAnthropicTools } from "./prepare-anthropic-tools.ts";
import { responseOfMessage } from "./read-anthropic-message.ts";

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
 * system prompt and the tool definitions are marked cacheable, since every call of a turn repeats them. What is
 * Anthropic's is in the files beside this one: the history's conversion, the tools, the stream, the stop reasons.
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
    return responseOfMessage(reply);
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
          if (read.ended) {
            stream.finish();
            break;
          }
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
    const tools = toAnthropicTools(request.tools);
    return {
      model: request.model,
      max_tokens: this.maxOutputTokens,
      system: [{ type: "text" as const, text: request.system, cache_control: CACHE }],
      messages: toAnthropicMessages(request.messages, request.media),
      ...(tools.length > 0 ? { tools } : {}),
    } satisfies MessageCreateParamsNonStreaming;
  }
}
