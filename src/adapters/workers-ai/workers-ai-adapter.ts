import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { ProviderError } from "../errors.ts";
import { toOpenAIMessages } from "../openai/convert-to-openai-messages.ts";
import { EventStreamBody } from "../server-sent-events.ts";
import type { FunctionTool, ModelAdapter, ModelRequest, ModelResponse, ModelStreamPart } from "../types.ts";
import { responseOfOutput } from "./read-workers-ai-output.ts";
import { runBinding, type WorkersAiRunner } from "./run-binding.ts";
import { StreamedBindingAnswer } from "./workers-ai-stream.ts";

/** Workers AI's models stop at 256 tokens unless told otherwise. */
export const WORKERS_AI_MAX_TOKENS = 4096;

export interface WorkersAiAdapterOptions {
  runner: WorkersAiRunner;
  maxRetries: number;
  /** Until the binding's output arrives (a stream then runs as long as it sends). */
  timeoutMs: number;
  maxTokens?: number;
}

/**
 * Workers AI through its `AI` binding: one `env.AI.run` per model call, its own output read as it is (whole, or
 * streamed as server-sent events), in either of the formats its models answer in (see read-workers-ai-output.ts).
 * The conversation and tools go in OpenAI's shape, which the binding's chat models take.
 */
export class WorkersAiAdapter implements ModelAdapter {
  readonly kind = "model";
  readonly label = "Workers AI";
  private readonly maxTokens: number;

  constructor(private readonly options: WorkersAiAdapterOptions) {
    this.maxTokens = options.maxTokens ?? WORKERS_AI_MAX_TOKENS;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const output = await this.run(request, false);
    const response = responseOfOutput(output, this.maxTokens);
    if (!response) throw unreadable();
    return response;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const output = await this.run(request, true);
    if (!(output instanceof ReadableStream)) {
      // A model that cannot stream answers whole.
      const response = responseOfOutput(output, this.maxTokens);
      if (!response) throw unreadable();
      if (response.message.content !== "") yield { type: "text_delta", text: response.message.content };
      yield { type: "response", response };
      return;
    }
    const answer = new StreamedBindingAnswer(this.maxTokens);
    const stream = new EventStreamBody(new Response(output), request.signal);
    // The binding's stream knows nothing of the turn's signal: a stop ends the reading.
    const stop = () => void stream.close();
    request.signal?.addEventListener("abort", stop, { once: true });
    try {
      for (let events = await stream.next(); events !== undefined; events = await stream.next()) {
        const read = answer.read(events);
        if (read.text !== "") yield { type: "text_delta", text: read.text };
        if (read.failure !== undefined) throw read.failure;
        if (read.ended) break;
      }
    } finally {
      request.signal?.removeEventListener("abort", stop);
      await stream.close();
    }
    if (request.signal?.aborted) throw new ProviderError("cancelled", "Workers AI: the call was cancelled");
    if (!answer.finished)
      throw new ProviderError("transport", "Workers AI: the stream ended before the answer was complete");
    yield { type: "response", response: answer.response() };
  }

  private run(request: ModelRequest, stream: boolean): Promise<unknown> {
    const tools = request.tools.filter((tool): tool is FunctionTool => tool.kind === "function");
    return runBinding(this.options.runner, {
      model: request.model,
      inputs: {
        messages: toOpenAIMessages(request.system, request.messages, request.media).map(forBinding),
        ...(tools.length > 0 ? { tools: tools.map(({ definition }) => toBindingTool(definition)) } : {}),
        max_tokens: this.maxTokens,
        ...(stream ? { stream: true } : {}),
      },
      maxRetries: this.options.maxRetries,
      timeoutMs: this.options.timeoutMs,
      signal: request.signal,
    });
  }
}

/** Workers AI's own message schema wants string content: an assistant message that only calls tools has none. */
function forBinding(message: ChatCompletionMessageParam): ChatCompletionMessageParam {
  return message.role === "assistant" && (message.content === null || message.content === undefined)
    ? { ...message, content: "" }
    : message;
}

function toBindingTool(definition: FunctionTool["definition"]) {
  return {
    type: "function" as const,
    function: { name: definition.name, description: definition.description, parameters: definition.inputSchema },
  };
}

/** As a 502 would be: another provider may well answer (a fallback chain moves on). */
function unreadable(): ProviderError {
  return new ProviderError("transport", "Workers AI answered in a shape this bot does not read");
}
