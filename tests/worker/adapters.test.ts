import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/adapters/anthropic/anthropic-adapter.ts";
import { toAnthropicMessages } from "../../src/adapters/anthropic/convert-to-anthropic-messages.ts";
import { toOpenAIMessage } from "../../src/adapters/openai/convert-to-openai-messages.ts";
import { OpenAIAdapter } from "../../src/adapters/openai/openai-adapter.ts";
import { functionTools } from "../../src/adapters/request-tools.ts";
import { runToolLoop, type ToolLoopInput } from "../../src/adapters/tool-loop.ts";
import type { ModelAdapter } from "../../src/adapters/types.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { HistoryMessage } from "../../src/protocol/messages.ts";
import { anthropicText, anthropicToolUse, fakes, openaiText, openaiToolCalls } from "./helpers.ts";

const base = { maxRetries: 1, timeoutMs: 5_000 };
const openai = (options: Partial<typeof base> = {}) =>
  new OpenAIAdapter({ apiKey: "test-openai-key", baseUrl: `${env.FAKES_URL}/openai/v1`, ...base, ...options });
const anthropic = () =>
  new AnthropicAdapter({ apiKey: "test-anthropic-key", baseUrl: `${env.FAKES_URL}/anthropic`, ...base });

/** A model call over `history` with one tool, `echo`, whose result names its arguments. */
function input(history: HistoryMessage[]): Omit<ToolLoopInput, "adapter"> {
  return {
    request: {
      model: "test-model",
      system: "You are a test.",
      messages: history,
      tools: functionTools([
        {
          name: "echo",
          description: "Echo the text",
          inputSchema: { type: "object", properties: { text: { type: "string" } } },
        },
      ]),
    },
    executeTool: async (name, argumentsText) => ({ content: `${name} got ${argumentsText}`, isError: false }),
  };
}

/** The events of the one tool loop, run over `adapter`. */
async function collect(adapter: ModelAdapter, loopInput: Omit<ToolLoopInput, "adapter">): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of runToolLoop({ adapter, ...loopInput })) events.push(event);
  return events;
}

describe("OpenAI adapter", () => {
  it("reports tool_start with a 200-character preview and token usage", async () => {
    const long = "x".repeat(500);
    await fakes.script("openai", openaiToolCalls([{ name: "echo", arguments: { text: long } }]), openaiText("done"));
    const events = await collect(openai(), input([{ role: "user", content: "go" }]));
    const start = events.find((event) => event.type === "tool_start");
    expect(start).toMatchObject({ type: "tool_start", toolName: "echo" });
    expect(start && "preview" in start ? start.preview.length : 0).toBe(200);
    expect(events.filter((event) => event.type === "usage")).toEqual([
      { type: "usage", inputTokens: 20, outputTokens: 10 },
      { type: "usage", inputTokens: 10, outputTokens: 5 },
    ]);
    expect(events.at(-1)).toEqual({ type: "result", text: "done" });
    const request = (await fakes.requests("openai"))[0]!;
    expect(request.headers.authorization).toBe("Bearer test-openai-key");
    expect(request.path).toBe("/openai/v1/chat/completions");
  });

  it("stops the loop after 50 model calls", async () => {
    const call = openaiToolCalls([{ name: "echo", arguments: { text: "again" } }]);
    await fakes.script("openai", ...Array.from({ length: 51 }, () => call));
    const events = await collect(openai(), input([{ role: "user", content: "loop forever" }]));
    expect(await fakes.requests("openai")).toHaveLength(50);
    expect(events.at(-1)).toMatchObject({
      type: "error",
      classification: "internal",
      message: expect.stringContaining("50"),
    });
  });

  it("classifies a timeout after its retries as a retryable timeout", async () => {
    await fakes.script("openai", { ...openaiText("late"), delayMs: 1500 }, { ...openaiText("late"), delayMs: 1500 });
    const events = await collect(openai({ timeoutMs: 300 }), input([{ role: "user", content: "hi" }]));
    expect(events.at(-1)).toMatchObject({ type: "error", classification: "timeout", retryable: true });
    expect(await fakes.requests("openai")).toHaveLength(2);
  });

  it("a 400 is permanent and not retried", async () => {
    await fakes.script("openai", { status: 400, body: { error: { message: "The model `nope` does not exist" } } });
    const events = await collect(openai(), input([{ role: "user", content: "hi" }]));
    expect(events.at(-1)).toMatchObject({
      type: "error",
      classification: "invalid_request",
      retryable: false,
      message: expect.stringContaining("does not exist"),
    });
    expect(await fakes.requests("openai")).toHaveLength(1);
  });
  it("retries a 429 after its retry-after-ms and obeys x-should-retry: false", async () => {
    await fakes.script(
      "openai",
      { status: 429, body: { error: { message: "slow down" } }, headers: { "retry-after-ms": "600" } },
      openaiText("after the wait"),
    );
    const events = await collect(openai(), input([{ role: "user", content: "hi" }]));
    expect(events.at(-1)).toEqual({ type: "result", text: "after the wait" });
    const [first, second] = await fakes.requests("openai");
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(550);

    await fakes.script("openai", {
      status: 503,
      body: { error: { message: "down for good" } },
      headers: { "x-should-retry": "false" },
    });
    const refused = await collect(openai(), input([{ role: "user", content: "hi" }]));
    expect(refused.at(-1)).toMatchObject({ type: "error", classification: "overloaded" });
    expect(await fakes.requests("openai")).toHaveLength(3);
  });

  it("stops at once, without a retry, when the turn is stopped while the model is slow", async () => {
    // The model would take 10 s; stopped, the call ends within 5 (room for a loaded machine, far from the 10).
    await fakes.script("openai", { ...openaiText("too late"), delayMs: 10_000 });
    const controller = new AbortController();
    const adapter = openai();
    const started = Date.now();
    const call = adapter.generate({ ...input([{ role: "user", content: "hi" }]).request, signal: controller.signal });
    await fakes.wait("openai");
    controller.abort();
    await expect(call).rejects.toMatchObject({ classification: "cancelled" });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await fakes.requests("openai")).toHaveLength(1);
  });
});

describe("Anthropic adapter", () => {
  it("runs the tool loop, marks system prompt and tools cacheable, reports usage", async () => {
    await fakes.script(
      "anthropic",
      anthropicToolUse([{ name: "echo", input: { text: "hi" } }], "Let me check."),
      anthropicText("All done."),
    );
    const events = await collect(anthropic(), input([{ role: "user", content: "go" }]));
    expect(events.map((event) => event.type)).toEqual([
      "usage",
      "message",
      "tool_start",
      "message",
      "usage",
      "finish",
      "result",
    ]);
    expect(events.at(-2)).toEqual({ type: "finish", reason: { kind: "stop" } });
    expect(events.at(-1)).toEqual({ type: "result", text: "All done." });
    const [first, second] = await fakes.requests("anthropic");
    expect(first!.headers["x-api-key"] ?? first!.headers.authorization).toMatch(/^(Bearer )?test-anthropic-key$/);
    const body = first!.body as {
      system: { cache_control?: unknown }[];
      tools: { cache_control?: unknown }[];
      max_tokens: number;
    };
    expect(body.system[0]!.cache_control).toEqual({ type: "ephemeral" });
    expect(body.tools.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
    const messages = (
      second!.body as {
        messages: { role: string; content: { type: string; content?: string; is_error?: boolean }[] }[];
      }
    ).messages;
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[2]!.content[0]).toMatchObject({ type: "tool_result", content: 'echo got {"text":"hi"}' });
  });

  it("retries a 529 overload and honours retry-after", async () => {
    await fakes.script(
      "anthropic",
      {
        status: 529,
        body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        headers: { "retry-after": "1" },
      },
      anthropicText("finally"),
    );
    const events = await collect(anthropic(), input([{ role: "user", content: "hi" }]));
    expect(events.at(-1)).toEqual({ type: "result", text: "finally" });
    const [first, second] = await fakes.requests("anthropic");
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it("streams an answer sent one character per event, and classifies an overload sent mid-stream", async () => {
    const text = "Grüße, 世界! A streamed answer.";
    await fakes.script("anthropic", { ...anthropicText(text), stream: { pieces: text.length } });
    const streamed = await collect(anthropic(), { ...input([{ role: "user", content: "hi" }]), stream: true });
    const deltas = streamed.flatMap((event) => (event.type === "text_delta" ? [event.text] : []));
    expect(deltas.length).toBeGreaterThan(20);
    expect(deltas.join("")).toBe(text);
    expect(streamed.at(-1)).toEqual({ type: "result", text });

    await fakes.script("anthropic", {
      ...anthropicText("cut short by an overload"),
      stream: { breakAfter: 3, errorType: "overloaded_error" },
    });
    const failed = await collect(anthropic(), { ...input([{ role: "user", content: "hi" }]), stream: true });
    expect(failed.at(-1)).toMatchObject({ type: "error", classification: "overloaded", retryable: true });
  });

  it("gives a permanent 401 as an auth error", async () => {
    await fakes.script("anthropic", {
      status: 401,
      body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
    });
    const events = await collect(anthropic(), input([{ role: "user", content: "hi" }]));
    expect(events.at(-1)).toMatchObject({ type: "error", classification: "auth", retryable: false });
  });
});

describe("history conversion", () => {
  const history: HistoryMessage[] = [
    { role: "user", content: "remember green" },
    { role: "assistant", content: "", toolCalls: [{ id: "call.1", name: "remember", arguments: '{"fact":"green"}' }] },
    { role: "tool", toolCallId: "call.1", toolName: "remember", content: "Remembered (id 1).", isError: false },
    { role: "assistant", content: "Noted." },
    { role: "user", content: "one" },
    { role: "user", content: "two" },
  ];

  it("gives Anthropic alternating turns with tool_use/tool_result pairs and safe ids", () => {
    const messages = toAnthropicMessages(history);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(messages[1]!.content).toEqual([
      { type: "tool_use", id: "call_1", name: "remember", input: { fact: "green" } },
    ]);
    expect(messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "call_1", content: "Remembered (id 1)." },
    ]);
    expect(messages[4]!.content).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
  });

  it("gives OpenAI the same conversation with tool_calls and tool messages", () => {
    const messages = history.map((message) => toOpenAIMessage(message));
    expect(messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call.1", type: "function", function: { name: "remember", arguments: '{"fact":"green"}' } }],
    });
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: "call.1", content: "Remembered (id 1)." });
  });
});
