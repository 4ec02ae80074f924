import * as z from "zod";
import type { ToolCall } from "../../protocol/messages.ts";
import type { ModelResponse } from "../types.ts";
import { mapWorkersAiFinishReason } from "./map-workers-ai-finish-reason.ts";

const usageSchema = z
  .object({
    prompt_tokens: z.number().optional(),
    completion_tokens: z.number().optional(),
  })
  .nullish();
export type WorkersAiUsage = z.infer<typeof usageSchema>;

const argumentsSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);
const openaiCallSchema = z.object({
  id: z.string().optional(),
  function: z.object({ name: z.string(), arguments: argumentsSchema }),
});
const nativeCallSchema = z.object({ name: z.string(), arguments: argumentsSchema.optional() });

/** OpenAI's format, as the newer models answer. */
const choicesSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), tool_calls: z.array(openaiCallSchema).nullish() }),
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
  // Not in the published schemas, but read by Cloudflare's own AI SDK provider: taken when it is there.
  finish_reason: z.string().nullish(),
});

/** An answer of either format, before it is made neutral. */
interface BindingAnswer {
  text: string;
  calls: { id: string | undefined; name: string; arguments: unknown }[];
  usage: WorkersAiUsage;
  finishReason: string | null | undefined;
}

/**
 * The binding's whole answer (`env.AI.run` without `stream`) as the neutral response, or undefined when it is in no
 * shape this adapter reads. Calls without ids (Workers AI's own format) get one; object arguments become JSON text.
 */
export function responseOfOutput(output: unknown, maxTokens: number): ModelResponse | undefined {
  const answer = answerOf(output);
  if (!answer) return undefined;
  const prefix = `call_${crypto.randomUUID().slice(0, 8)}`;
  const toolCalls: ToolCall[] = answer.calls.map((call, index) => ({
    id: call.id ?? `${prefix}_${index}`,
    name: call.name,
    arguments: argumentsText(call.arguments),
  }));
  return neutralResponse(answer.text, toolCalls, answer.usage, answer.finishReason, maxTokens);
}

/** The neutral response of a read answer, whole or streamed. */
export function neutralResponse(
  text: string,
  toolCalls: ToolCall[],
  usage: WorkersAiUsage,
  finishReason: string | null | undefined,
  maxTokens: number,
): ModelResponse {
  return {
    message: { role: "assistant", content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
    finish: mapWorkersAiFinishReason({
      finishReason,
      toolCalls: toolCalls.length,
      completionTokens: usage?.completion_tokens,
      maxTokens,
    }),
    ...(usage ? { usage: { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } } : {}),
  };
}

/** A call's arguments as JSON text: Workers AI's own format gives an object, or nothing for none. */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value ?? {});
}

function answerOf(output: unknown): BindingAnswer | undefined {
  if (typeof output === "string") return { text: output, calls: [], usage: undefined, finishReason: undefined };
  const openai = choicesSchema.safeParse(output);
  if (openai.success) {
    const [choice] = openai.data.choices;
    return {
      text: choice?.message.content ?? "",
      calls: (choice?.message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
      usage: openai.data.usage,
      finishReason: choice?.finish_reason,
    };
  }
  const native = nativeSchema.safeParse(output);
  if (!native.success) return undefined;
  const { response, tool_calls } = native.data;
  if (response === undefined && tool_calls === undefined) return undefined;
  return {
    text:
      response === undefined || response === null
        ? ""
        : typeof response === "string"
          ? response
          : JSON.stringify(response),
    calls: (tool_calls ?? []).map((call) =>
      "function" in call
        ? { id: call.id, name: call.function.name, arguments: call.function.arguments }
        : { id: undefined, name: call.name, arguments: call.arguments },
    ),
    usage: native.data.usage,
    finishReason: native.data.finish_reason,
  };
}
