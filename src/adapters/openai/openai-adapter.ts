import type { ChatCompletion } from "openai/resources/chat/completions";
import { ProviderError, providerErrorFrom } from "../errors.ts";
import { EventStreamBody } from "../server-sent-events.ts";
import type { ModelAdapter, ModelRequest, ModelResponse, ModelStreamPart } from "../types.ts";
import { ChatCompletionsClient, type ChatCompletionsClientOptions, OPENAI_ERRORS } from "./chat-completions-client.ts";
import { toOpenAIMessages } from "./convert-to-openai-messages.ts";
import { contentText, responseOfCompletion } from "./openai-response.ts";
import { StreamedCompletion } from "./openai-stream.ts";
import { openAIToolsJson } from "./prepare-openai-tools.ts";

export interface OpenAIAdapterOptions extends ChatCompletionsClientOptions {
  /** The provider's name in messages (default "OpenAI"; "Workers AI" for its OpenAI-compatible endpoint). */
  label?: string;
  /** Sent as `max_tokens` when set (Workers AI's models otherwise stop at 256). */
  maxTokens?: number;
}

/**
 * Chat Completions with function calling. Any OpenAI-compatible server works through `baseUrl` (AI Gateway,
 * OpenRouter, Groq, Mistral, DeepSeek, a local server). Retries of 408/409/429/5xx and timeouts are the SDK's policy
 * (see chat-completions-client.ts): bounded exponential backoff (0.5 s doubling to 8 s, with jitter) that waits
 * `retry-after` / `retry-after-ms` when the server sends one. What is OpenAI's is in the files beside this one.
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
      completion = await this.client.create(this.body(request), request.signal, openAIToolsJson(request.tools));
    } catch (error) {
      throw providerErrorFrom(error, this.label, OPENAI_ERRORS);
    }
    const choice = completion.choices?.[0];
    if (!choice?.message)
      throw new ProviderError("invalid_request", `${this.label}: no choice in the answer`, { retryable: false });
    const reply = choice.message;
    return responseOfCompletion({
      text: contentText(reply.content),
      refusal: reply.refusal ?? "",
      // Function calls (Mistral's come without their `type`); a custom tool's call is none of the bot's.
      toolCalls: (reply.tool_calls ?? []).flatMap((call) =>
        "function" in call ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
      ),
      finishReason: choice.finish_reason,
      usage: completion.usage,
    });
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const answer = new StreamedCompletion();
    try {
      const response = await this.client.streamed(
        { ...this.body(request), stream: true, stream_options: { include_usage: true } },
        request.signal,
        openAIToolsJson(request.tools),
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

  /** The request's body; its tools go as ready JSON beside it (see prepare-openai-tools.ts). */
  private body(request: ModelRequest) {
    return {
      model: request.model,
      messages: toOpenAIMessages(request.system, request.messages, request.media),
      ...(this.maxTokens === undefined ? {} : { max_tokens: this.maxTokens }),
    };
  }
}
