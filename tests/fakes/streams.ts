/**
 * Scripted model answers as the server-sent events the OpenAI and Anthropic APIs stream when a request says
 * `stream: true`. The fakes convert any scripted JSON answer this way, so one script serves both kinds of call.
 */

export interface StreamShape {
  /** Text is sent in this many pieces (default: one per word). */
  pieces?: number;
  /** Wait between events. */
  delayMs?: number;
  /** Drop the connection after this many events, as a dying upstream would. */
  breakAfter?: number;
  /** With `breakAfter`: send the Messages API's `error` event of this type (e.g. `overloaded_error`) instead. */
  errorType?: string;
}

/** The `error` event the Messages API sends when an answer fails mid-stream. */
export function anthropicErrorEvent(type: string): string {
  return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type, message: "Overloaded" } })}\n\n`;
}

interface OpenAICompletion {
  id?: string;
  model?: string;
  choices?: {
    finish_reason?: string | null;
    message?: {
      content?: string | null;
      tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    };
  }[];
  usage?: unknown;
}

interface AnthropicMessage {
  id?: string;
  model?: string;
  content?: (
    | { type: "text"; text: string; citations?: unknown[] | null }
    | { type: "tool_use" | "server_tool_use"; id: string; name: string; input: unknown }
    | { type: "web_search_tool_result"; tool_use_id: string; content: unknown }
  )[];
  stop_reason?: string;
  usage?: { input_tokens?: number; output_tokens?: number; server_tool_use?: unknown };
}

export function splitText(text: string, pieces: number | undefined): string[] {
  if (text === "") return [];
  if (pieces === undefined) return text.match(/\S+\s*|\s+/g) ?? [text];
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

/** `data: <chunk>` lines of a Chat Completions stream, ending with `[DONE]`. */
export function openaiEvents(body: unknown, shape: StreamShape = {}): string[] {
  const completion = (body ?? {}) as OpenAICompletion;
  const choice = completion.choices?.[0];
  const base = {
    id: completion.id ?? "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1,
    model: completion.model ?? "gpt-test",
  };
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const events = [chunk({ role: "assistant", content: "" })];
  for (const piece of splitText(choice?.message?.content ?? "", shape.pieces)) events.push(chunk({ content: piece }));
  (choice?.message?.tool_calls ?? []).forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
      }),
    );
    events.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
  });
  events.push(chunk({}, choice?.finish_reason ?? "stop"));
  events.push(`data: ${JSON.stringify({ ...base, choices: [], usage: completion.usage ?? null })}\n\n`);
  events.push("data: [DONE]\n\n");
  return events;
}

/** `event:`/`data:` pairs of a Messages API stream, from `message_start` to `message_stop`. */
export function anthropicEvents(body: unknown, shape: StreamShape = {}): string[] {
  const message = (body ?? {}) as AnthropicMessage;
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = message.usage ?? {};
  const events = [
    event("message_start", {
      message: {
        id: message.id ?? "msg_fake",
        type: "message",
        role: "assistant",
        model: message.model ?? "claude-test",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ];
  (message.content ?? []).forEach((block, index) => {
    if (block.type === "text") {
      // A cited text block opens empty, then sends its citations, then its text (as the Messages API streams it).
      events.push(
        event("content_block_start", {
          index,
          content_block: { type: "text", text: "", ...(block.citations ? { citations: null } : {}) },
        }),
      );
      for (const citation of block.citations ?? []) {
        events.push(event("content_block_delta", { index, delta: { type: "citations_delta", citation } }));
      }
      for (const piece of splitText(block.text, shape.pieces)) {
        events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
      }
    } else if (block.type === "web_search_tool_result") {
      // A server tool's result arrives whole, in its start event.
      events.push(event("content_block_start", { index, content_block: block }));
    } else {
      events.push(
        event("content_block_start", {
          index,
          content_block: { type: block.type, id: block.id, name: block.name, input: {} },
        }),
      );
      events.push(
        event("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) },
        }),
      );
    }
    events.push(event("content_block_stop", { index }));
  });
  events.push(
    event("message_delta", {
      delta: { stop_reason: message.stop_reason ?? "end_turn", stop_sequence: null },
      usage: {
        output_tokens: usage.output_tokens ?? 0,
        ...(usage.server_tool_use ? { server_tool_use: usage.server_tool_use } : {}),
      },
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}
