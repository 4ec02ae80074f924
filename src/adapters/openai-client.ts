import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai/core/error";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import { ModelHttp, type SdkErrors } from "./model-http.ts";
import type { ReadyJson } from "./ready-json.ts";
import { serverSentEvents } from "./server-sent-events.ts";

export interface ChatCompletionsClientOptions {
  apiKey: string;
  /** Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  maxRetries: number;
  /** Until the answer's headers arrive; a stream then runs as long as it sends. */
  timeoutMs: number;
  /** How the request goes out; default the global `fetch` (Workers AI's binding answers through one, see workers-ai.ts). */
  fetch?: typeof fetch;
}

/** The SDK's error classes: a failed call throws what the SDK's own client would, and they classify it. */
export const OPENAI_ERRORS: SdkErrors = { APIError, APIUserAbortError, APIConnectionTimeoutError, APIConnectionError };

/**
 * `POST /chat/completions` with the OpenAI SDK's own wire types and error classes and its retry policy (see
 * `model-http.ts`). The SDK's `OpenAI` client class constructs every resource of the API (audio, batches, vector
 * stores…) and cannot be tree-shaken: it cost the Worker 412 KiB of bundle (about 85 KiB gzip) for this one call.
 */
export class ChatCompletionsClient {
  private readonly http: ModelHttp;

  constructor(options: ChatCompletionsClientOptions) {
    this.http = new ModelHttp({
      url: `${(options.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/chat/completions`,
      headers: { authorization: `Bearer ${options.apiKey}` },
      maxRetries: options.maxRetries,
      timeoutMs: options.timeoutMs,
      errors: OPENAI_ERRORS,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** `ready`: members whose JSON is made already (the tools), see ready-json.ts. */
  async create(
    body: ChatCompletionCreateParamsNonStreaming,
    signal?: AbortSignal,
    ready?: ReadyJson,
  ): Promise<ChatCompletion> {
    const response = await this.http.post(body, signal, ready);
    return (await response.json()) as ChatCompletion;
  }

  /**
   * The answer's chunks until `[DONE]`, one batch per read of the body (see server-sent-events.ts); an `error` event
   * mid-stream throws as the SDK's stream does, after the chunks before it.
   */
  async *stream(
    body: ChatCompletionCreateParamsStreaming,
    signal?: AbortSignal,
    ready?: ReadyJson,
  ): AsyncGenerator<readonly ChatCompletionChunk[]> {
    const response = await this.http.post(body, signal, ready);
    for await (const events of serverSentEvents(response, signal)) {
      const chunks: ChatCompletionChunk[] = [];
      for (const event of events) {
        if (event.data === "[DONE]") {
          if (chunks.length > 0) yield chunks;
          return;
        }
        const data = JSON.parse(event.data) as ChatCompletionChunk | { error: object };
        if ("error" in data) {
          if (chunks.length > 0) yield chunks;
          throw new APIError(undefined, data.error, undefined, response.headers);
        }
        chunks.push(data);
      }
      if (chunks.length > 0) yield chunks;
    }
  }
}
