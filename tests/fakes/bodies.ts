/**
 * Model API answers as the fakes, the tests and the benchmark script them (no Node or Workers imports, so both
 * runtimes can use this module).
 */
export interface FakeToolCall {
  name: string;
  arguments: unknown;
  id?: string;
}

let nextCall = 1;

export function openaiCompletion(
  text: string | null,
  options: { toolCalls?: FakeToolCall[]; usage?: { prompt_tokens: number; completion_tokens: number } } = {},
): unknown {
  const usage = options.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  const toolCalls = options.toolCalls?.map((call) => ({
    id: call.id ?? `call_${nextCall++}`,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1,
    model: "gpt-test",
    choices: [
      {
        index: 0,
        finish_reason: toolCalls ? "tool_calls" : "stop",
        message: { role: "assistant", content: text, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export function anthropicMessage(
  text: string,
  toolUses: { name: string; input: unknown; id?: string }[] = [],
): unknown {
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [
      ...(text ? [{ type: "text", text }] : []),
      ...toolUses.map((use) => ({
        type: "tool_use",
        id: use.id ?? `toolu_${nextCall++}`,
        name: use.name,
        input: use.input,
      })),
    ],
    stop_reason: toolUses.length > 0 ? "tool_use" : "end_turn",
    usage:
      toolUses.length > 0
        ? { input_tokens: 30, output_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
        : { input_tokens: 12, output_tokens: 6, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  };
}
