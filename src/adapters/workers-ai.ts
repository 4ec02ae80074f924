import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageFunctionToolCall,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import * as z from "zod";
import { errorText } from "../lib/errors.ts";
import { redactSecrets } from "../lib/redact.ts";

/** The part of the `AI` binding a model call uses (`env.AI` has it; tests pass a fake). */
export interface WorkersAiRunner {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

/** Workers AI's models stop at 256 tokens unless told otherwise. */
export const WORKERS_AI_MAX_TOKENS = 4096;

/** Where the binding's requests pretend to go: `ChatCompletionsClient` needs a URL, the binding none. */
export const BINDING_BASE_URL = "https://workers-ai.binding/v1";

/**
 * A `fetch` for `ChatCompletionsClient` that answers `POST /chat/completions` through the `AI` binding, so that the
 * OpenAI adapter (tools, retries, error classes, usage) serves Workers AI unchanged. The binding answers whole, so a
 * streamed request gets the answer as one SSE chunk. Models answer either in OpenAI's format (`choices`) or in Workers
 * AI's own (`response` and `tool_calls` without ids); both are read. A binding error becomes the HTTP status it
 * stands for (capacity 503, limits 429, bad input 400), so that it is retried and classified like any provider's.
 */
export function bindingFetch(runner: WorkersAiRunner): typeof fetch {
  return async (_input, init) => {
    const request = requestSchema.safeParse(parseJson(typeof init?.body === "string" ? init.body : ""));
    if (!request.success) return errorResponse(400, "the request to Workers AI is not a chat completion");
    const { model, stream, messages, tools, max_tokens } = request.data;
    let output: unknown;
    try {
      output = await untilAborted(
        runner.run(model, {
          messages: messages.map(forBinding),
          ...(tools && tools.length > 0 ? { tools } : {}),
          max_tokens: max_tokens ?? WORKERS_AI_MAX_TOKENS,
        }),
        init?.signal ?? undefined,
      );
    } catch (error) {
      if (init?.signal?.aborted) throw error;
      const message = errorText(error);
      return errorResponse(statusOfBindingError(message), redactSecrets(message).slice(0, 300));
    }
    const completion = completionOf(model, output);
    if (!completion) return errorResponse(502, "Workers AI answered in a shape this bot does not read");
    return stream ? sseOf(completion) : Response.json(completion);
  };
}

const requestSchema = z.object({
  model: z.string().min(1),
  stream: z.boolean().optional(),
  max_tokens: z.number().int().positive().optional(),
  messages: z.array(z.looseObject({ role: z.string() })),
  tools: z.array(z.looseObject({ type: z.literal("function") })).optional(),
});

/** Workers AI's own message schema wants string content: an assistant message that only calls tools has none. */
function forBinding(message: z.infer<typeof requestSchema>["messages"][number]): Record<string, unknown> {
  return message.role === "assistant" && (message.content === null || message.content === undefined)
    ? { ...message, content: "" }
    : message;
}

const usageSchema = z
  .object({
    prompt_tokens: z.number().optional(),
    completion_tokens: z.number().optional(),
  })
  .optional();

const openaiCallSchema = z.object({
  id: z.string().optional(),
  function: z.object({ name: z.string(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]) }),
});
const nativeCallSchema = z.object({
  name: z.string(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
});

/** OpenAI's format, as the newer models answer. */
const choicesSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(openaiCallSchema).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: usageSchema,
});

/** Workers AI's own format: `response` text (an object in JSON mode) and tool calls without ids. */
const nativeSchema = z.object({
  response: z.unknown().optional(),
  tool_calls: z.array(z.union([nativeCallSchema, openaiCallSchema])).optional(),
  usage: usageSchema,
});

interface Answer {
  text: string;
  calls: { id: string | undefined; name: string; arguments: unknown }[];
  usage: z.infer<typeof usageSchema>;
}

function answerOf(output: unknown): Answer | undefined {
  if (typeof output === "string") return { text: output, calls: [], usage: undefined };
  const openai = choicesSchema.safeParse(output);
  if (openai.success) {
    const message = openai.data.choices[0]!.message;
    return {
      text: message.content ?? "",
      calls: (message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
      usage: openai.data.usage,
    };
  }
  const native = nativeSchema.safeParse(output);
  if (!native.success) return undefined;
  const { response } = native.data;
  if (response === undefined && native.data.tool_calls === undefined) return undefined;
  return {
    text:
      response === undefined || response === null
        ? ""
        : typeof response === "string"
          ? response
          : JSON.stringify(response),
    calls: (native.data.tool_calls ?? []).map((call) =>
      "function" in call
        ? { id: call.id, name: call.function.name, arguments: call.function.arguments }
        : { id: undefined, name: call.name, arguments: call.arguments },
    ),
    usage: native.data.usage,
  };
}

function completionOf(model: string, output: unknown): ChatCompletion | undefined {
  const answer = answerOf(output);
  if (!answer) return undefined;
  const id = `workers-ai-${crypto.randomUUID()}`;
  const toolCalls = answer.calls.map(
    (call, index): ChatCompletionMessageFunctionToolCall => ({
      id: call.id ?? `call_${id.slice(-12)}_${index}`,
      type: "function",
      function: {
        name: call.name,
        arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
      },
    }),
  );
  const usage: CompletionUsage | undefined = answer.usage && {
    prompt_tokens: answer.usage.prompt_tokens ?? 0,
    completion_tokens: answer.usage.completion_tokens ?? 0,
    total_tokens: (answer.usage.prompt_tokens ?? 0) + (answer.usage.completion_tokens ?? 0),
  };
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

/** The whole answer as an OpenAI stream: one chunk with the text and tool calls, one with the usage. */
function sseOf(completion: ChatCompletion): Response {
  const choice = completion.choices[0]!;
  const base = {
    id: completion.id,
    object: "chat.completion.chunk" as const,
    created: completion.created,
    model: completion.model,
  };
  const chunks: ChatCompletionChunk[] = [
    {
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            role: "assistant",
            content: choice.message.content,
            ...(choice.message.tool_calls
              ? {
                  tool_calls: choice.message.tool_calls.map((call, index) => ({
                    index,
                    id: call.id,
                    type: "function" as const,
                    function: call.type === "function" ? call.function : { name: "", arguments: "" },
                  })),
                }
              : {}),
          },
          finish_reason: choice.finish_reason,
        },
      ],
    },
    ...(completion.usage ? [{ ...base, choices: [], usage: completion.usage }] : []),
  ];
  const text = `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`;
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

/**
 * The HTTP status a binding error stands for, from its message (the binding throws plain Errors such as
 * "3040: Capacity temporarily exceeded" or "4006: you have used up your daily free allocation").
 */
export function statusOfBindingError(message: string): number {
  if (/capacity|overloaded|\b3040\b/i.test(message)) return 503;
  if (/rate limit|too many requests|allocation|neurons|\b3036\b|\b4006\b/i.test(message)) return 429;
  if (/timed? ?out|\b3007\b/i.test(message)) return 504;
  if (/auth|\b10000\b/i.test(message)) return 401;
  if (/invalid|bad input|not found|no such model|unknown model|\b5006\b|\b8001\b/i.test(message)) return 400;
  return 500;
}

function errorResponse(status: number, message: string): Response {
  return Response.json({ error: { message } }, { status });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The binding cannot be cancelled: the call is left to finish while the caller moves on (timeout or /stop). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
