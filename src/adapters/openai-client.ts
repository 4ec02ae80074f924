import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai/core/error";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
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

const MAX_RETRY_AFTER_MS = 60_000;

/**
 * `POST /chat/completions`, with the OpenAI SDK's own wire types and error classes, and its retry
 * policy: 408, 409, 429, 5xx, connection errors and timeouts are retried up to `maxRetries` times, waiting
 * `retry-after-ms` / `retry-after` when the server sends one (up to 60 s), else 0.5 s doubling to 8 s with jitter;
 * `x-should-retry` overrides. The SDK's `OpenAI` client class constructs every resource of the API (audio, batches,
 * vector stores…) and cannot be tree-shaken: it cost the Worker 412 KiB of bundle (about 85 KiB gzip) for this one
 * call.
 */
export class ChatCompletionsClient {
  /** The error classes `providerErrorFrom` tells apart, as on the SDK's client class. */
  static readonly APIUserAbortError = APIUserAbortError;
  static readonly APIConnectionTimeoutError = APIConnectionTimeoutError;
  static readonly APIConnectionError = APIConnectionError;

  private readonly url: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ChatCompletionsClientOptions) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.url = `${(options.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/chat/completions`;
  }

  async create(body: ChatCompletionCreateParamsNonStreaming, signal?: AbortSignal): Promise<ChatCompletion> {
    const response = await this.post(body, signal);
    return (await response.json()) as ChatCompletion;
  }

  /** The answer's chunks until `[DONE]`; an `error` event mid-stream throws as the SDK's stream does. */
  async *stream(body: ChatCompletionCreateParamsStreaming, signal?: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    const response = await this.post(body, signal);
    for await (const event of serverSentEvents(response, signal)) {
      if (event.data === "[DONE]") return;
      const data = JSON.parse(event.data) as ChatCompletionChunk | { error: object };
      if ("error" in data) throw new APIError(undefined, data.error, undefined, response.headers);
      yield data;
    }
  }

  private async post(body: object, signal: AbortSignal | undefined): Promise<Response> {
    const payload = JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.options.maxRetries;
      const sent = await this.send(payload, signal);
      if (sent.kind === "response" && sent.response.ok) return sent.response;
      if (sent.kind === "failed") {
        if (!retriesLeft || signal?.aborted) throw sent.error;
        await pause(backoffMs(attempt), signal);
        continue;
      }
      const { response } = sent;
      if (retriesLeft && shouldRetry(response)) {
        await response.body?.cancel().catch(() => undefined);
        await pause(retryAfterMs(response.headers) ?? backoffMs(attempt), signal);
        continue;
      }
      const text = await response.text().catch((error: unknown) => String(error));
      const json = parseJson(text);
      throw APIError.generate(response.status, json, json === undefined ? text : undefined, response.headers);
    }
  }

  private async send(
    payload: string,
    signal: AbortSignal | undefined,
  ): Promise<{ kind: "response"; response: Response } | { kind: "failed"; error: APIError }> {
    if (signal?.aborted) throw new APIUserAbortError();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.fetch(this.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.options.apiKey}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: payload,
        signal: signal ? AbortSignal.any([controller.signal, signal]) : controller.signal,
      });
      return { kind: "response", response };
    } catch (error) {
      if (signal?.aborted) throw new APIUserAbortError();
      if (controller.signal.aborted) return { kind: "failed", error: new APIConnectionTimeoutError() };
      return { kind: "failed", error: new APIConnectionError({ cause: error instanceof Error ? error : undefined }) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

function shouldRetry(response: Response): boolean {
  const header = response.headers.get("x-should-retry");
  if (header === "true") return true;
  if (header === "false") return false;
  return response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
}

function retryAfterMs(headers: Headers): number | undefined {
  const milliseconds = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  let wait = Number.isNaN(milliseconds) ? undefined : milliseconds;
  const after = headers.get("retry-after");
  if (wait === undefined && after) {
    const seconds = Number.parseFloat(after);
    wait = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  return wait !== undefined && Number.isFinite(wait) && wait >= 0 && wait <= MAX_RETRY_AFTER_MS ? wait : undefined;
}

function backoffMs(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 8000) * (1 - Math.random() * 0.25);
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function parseJson(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}
