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

/**
 * An answer in which Anthropic searched the web on its own servers: a `server_tool_use` and its
 * `web_search_tool_result` per query, then the text citing the first result, with the searches in the usage.
 */
export function anthropicSearchedAnswer(text: string, queries: string[]): unknown {
  const blocks = queries.flatMap((query, index) => [
    { type: "server_tool_use", id: `srvtoolu_${index + 1}`, name: "web_search", input: { query } },
    {
      type: "web_search_tool_result",
      tool_use_id: `srvtoolu_${index + 1}`,
      content: [
        {
          type: "web_search_result",
          url: `https://news.example/${index + 1}`,
          title: `News about ${query}`,
          encrypted_content: "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2YSDAo",
          page_age: "November 20, 2026",
        },
      ],
    },
  ]);
  return {
    id: "msg_fake_search",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [
      ...blocks,
      {
        type: "text",
        text,
        citations: [
          {
            type: "web_search_result_location",
            url: "https://news.example/1",
            title: `News about ${queries[0]}`,
            encrypted_index: "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
            cited_text: "The first result says so.",
          },
        ],
      },
    ],
    stop_reason: "end_turn",
    usage: {
      input_tokens: 40,
      output_tokens: 20,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      server_tool_use: { web_search_requests: queries.length },
    },
  };
}
