import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai/core/error";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import { ModelHttp, type SdkErrors } from "../model-http.ts";
import type { ReadyJson } from "../ready-json.ts";

export interface ChatCompletionsClientOptions {
  apiKey: string;
  /** Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  maxRetries: number;
  /** Until the answer's headers arrive; a stream then runs as long as it sends. */
  timeoutMs: number;
  /** How the request goes out; default the global `fetch` (tests pass their own). */
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
   * The answer's response as a stream of `text/event-stream` events, its body unread: the adapter reads it with
   * `serverSentEvents` and each event with `chunkOf` (one generator fewer on the path of every read than a stream of
   * chunks from here, see server-sent-events.ts).
   */
  async streamed(
    body: ChatCompletionCreateParamsStreaming,
    signal?: AbortSignal,
    ready?: ReadyJson,
  ): Promise<Response> {
    return this.http.post(body, signal, ready);
  }
}

/**
 * One event of a Chat Completions stream: a chunk, or undefined for `[DONE]`; an `error` event throws as the SDK's
 * stream does.
 */
export function chunkOf(data: string, headers: Headers): ChatCompletionChunk | undefined {
  if (data === "[DONE]") return undefined;
  const parsed = JSON.parse(data) as ChatCompletionChunk | { error: object };
  if ("error" in parsed) throw new APIError(undefined, parsed.error, undefined, headers);
  return parsed;
}
