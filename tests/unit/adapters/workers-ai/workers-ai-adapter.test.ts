import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../../src/adapters/errors.ts";
import { functionTools } from "../../../../src/adapters/request-tools.ts";
import type { ModelRequest, ModelStreamPart } from "../../../../src/adapters/types.ts";
import type { WorkersAiRunner } from "../../../../src/adapters/workers-ai/run-binding.ts";
import { WORKERS_AI_MAX_TOKENS, WorkersAiAdapter } from "../../../../src/adapters/workers-ai/workers-ai-adapter.ts";

const MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

/** A stand-in for the `AI` binding: records each call and answers (or throws) what the test says. */
class FakeRunner implements WorkersAiRunner {
  readonly calls: { model: string; inputs: Record<string, unknown> }[] = [];

  constructor(private readonly answers: (() => unknown)[]) {}

  async run(model: string, inputs: Record<string, unknown>): Promise<unknown> {
    this.calls.push({ model, inputs });
    const next = this.answers.shift();
    if (!next) throw new Error("the fake runner has no answer left");
    return next();
  }
}

const adapterOn = (runner: WorkersAiRunner, maxRetries = 0, timeoutMs = 5_000) =>
  new WorkersAiAdapter({ runner, maxRetries, timeoutMs });

/** The binding's stream: these server-sent events' data, one read each, then `[DONE]`. */
function eventStream(chunks: readonly unknown[], done = true): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      if (done) controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      controller.close();
    },
  });
}

const request: ModelRequest = {
  model: MODEL,
  system: "You are a test.",
  messages: [
    { role: "user", content: "What is the weather in Paris?" },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "weather", arguments: '{"city":"Paris"}' }] },
    { role: "tool", toolCallId: "c1", toolName: "weather", content: "sunny" },
  ],
  tools: functionTools([
    {
      name: "weather",
      description: "The weather in a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ]),
};

async function collect(stream: AsyncGenerator<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("Workers AI through the AI binding", () => {
  it("sends the conversation and tools in OpenAI's shape and reads Workers AI's own answer", async () => {
    const runner = new FakeRunner([
      () => ({ response: "It is sunny.", usage: { prompt_tokens: 30, completion_tokens: 4 } }),
    ]);
    const response = await adapterOn(runner).generate(request);
    expect(response.message).toEqual({ role: "assistant", content: "It is sunny." });
    expect(response.usage).toEqual({ inputTokens: 30, outputTokens: 4 });
    expect(response.finish).toEqual({ kind: "stop" });

    const [call] = runner.calls;
    expect(call!.model).toBe(MODEL);
    expect(call!.inputs.max_tokens).toBe(WORKERS_AI_MAX_TOKENS);
    expect(call!.inputs.stream).toBeUndefined();
    const messages = call!.inputs.messages as { role: string; content: unknown }[];
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    // Workers AI's own schema wants text content, also on a message that only calls tools.
    expect(messages[2]!.content).toBe("");
    expect(call!.inputs.tools).toEqual([
      {
        type: "function",
        function: {
          name: "weather",
          description: "The weather in a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ]);
  });

  it("turns Workers AI's tool calls (object arguments, no ids) into calls with ids and JSON arguments", async () => {
    const runner = new FakeRunner([
      () => ({ response: null, tool_calls: [{ name: "weather", arguments: { city: "Oslo" } }, { name: "time" }] }),
    ]);
    const { message, finish } = await adapterOn(runner).generate(request);
    expect(message.toolCalls?.map((call) => [call.name, call.arguments])).toEqual([
      ["weather", '{"city":"Oslo"}'],
      ["time", "{}"],
    ]);
    const ids = message.toolCalls!.map((call) => call.id);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(finish).toEqual({ kind: "tool_calls" });
  });

  it("reads the newer models' OpenAI-format answer, tool calls and finish reason included", async () => {
    const runner = new FakeRunner([
      () => ({
        choices: [
          {
            message: {
              content: null,
              tool_calls: [
                { id: "call_9", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 7 },
      }),
      () => ({ choices: [{ message: { content: "Rome is" }, finish_reason: "length" }] }),
    ]);
    const adapter = adapterOn(runner);
    const response = await adapter.generate(request);
    expect(response.message.toolCalls).toEqual([{ id: "call_9", name: "weather", arguments: '{"city":"Rome"}' }]);
    expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
    expect((await adapter.generate(request)).finish).toEqual({ kind: "length", limit: "output" });
  });

  it("takes an answer of Workers AI's own format that used every token it was allowed as cut", async () => {
    const runner = new FakeRunner([
      () => ({ response: "A long", usage: { prompt_tokens: 3, completion_tokens: WORKERS_AI_MAX_TOKENS } }),
    ]);
    expect((await adapterOn(runner).generate(request)).finish).toEqual({ kind: "length", limit: "output" });
  });

  it("streams Workers AI's own events as they come, with the usage of the last one", async () => {
    const runner = new FakeRunner([
      () =>
        eventStream([
          { response: "Streamed", p: "abc" },
          { response: " in pieces." },
          { response: "", usage: { prompt_tokens: 3, completion_tokens: 2 } },
        ]),
    ]);
    const parts = await collect(adapterOn(runner).stream(request));
    expect(parts).toEqual([
      { type: "text_delta", text: "Streamed" },
      { type: "text_delta", text: " in pieces." },
      {
        type: "response",
        response: {
          message: { role: "assistant", content: "Streamed in pieces." },
          finish: { kind: "stop" },
          usage: { inputTokens: 3, outputTokens: 2 },
        },
      },
    ]);
    expect(runner.calls[0]!.inputs.stream).toBe(true);
  });

  it("puts a streamed tool call together from its pieces and skips the closing piece", async () => {
    const runner = new FakeRunner([
      () =>
        eventStream([
          { tool_calls: [{ id: "call_1", type: "function", index: 0, function: { name: "weather" } }] },
          { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
          { tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] },
          { tool_calls: [{ id: null, type: null, function: { name: null } }] },
          { response: "", usage: { prompt_tokens: 9, completion_tokens: 8 } },
        ]),
    ]);
    const parts = await collect(adapterOn(runner).stream(request));
    const last = parts.at(-1);
    expect(last?.type === "response" && last.response.message.toolCalls).toEqual([
      { id: "call_1", name: "weather", arguments: '{"city":"Oslo"}' },
    ]);
    expect(last?.type === "response" && last.response.finish).toEqual({ kind: "tool_calls" });
  });

  it("reads the newer models' streamed OpenAI chunks and their finish reason", async () => {
    const runner = new FakeRunner([
      () =>
        eventStream([
          { choices: [{ index: 0, delta: { content: "Cut" } }] },
          {
            choices: [{ index: 0, delta: {}, finish_reason: "length" }],
            usage: { prompt_tokens: 1, completion_tokens: 9 },
          },
        ]),
    ]);
    const last = (await collect(adapterOn(runner).stream(request))).at(-1);
    expect(last?.type === "response" && last.response.finish).toEqual({ kind: "length", limit: "output" });
  });

  it("fails a stream that breaks off before [DONE] as a transport error, after what it streamed", async () => {
    const runner = new FakeRunner([() => eventStream([{ response: "Half" }], false)]);
    const parts: ModelStreamPart[] = [];
    const error = await (async () => {
      for await (const part of adapterOn(runner).stream(request)) parts.push(part);
    })().catch((caught: unknown) => caught);
    expect(parts).toEqual([{ type: "text_delta", text: "Half" }]);
    expect((error as ProviderError).classification).toBe("transport");
  });

  it("retries a capacity error and classifies what is left, so that a fallback chain moves on", async () => {
    const capacity = () => {
      throw new Error("3040: Capacity temporarily exceeded, please try again.");
    };
    const retried = new FakeRunner([capacity, () => ({ response: "Second try." })]);
    expect((await adapterOn(retried, 1).generate(request)).message.content).toBe("Second try.");
    expect(retried.calls).toHaveLength(2);

    const failing = adapterOn(new FakeRunner([capacity]));
    const error = await failing.generate(request).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).classification).toBe("overloaded");
    expect((error as ProviderError).message).toContain("Workers AI: 3040");
  });

  it("does not retry a bad request", async () => {
    const runner = new FakeRunner([
      () => {
        throw new Error("5006: Error: required properties at '/' are 'messages'");
      },
      () => ({ response: "never" }),
    ]);
    const error = await adapterOn(runner, 2)
      .generate(request)
      .catch((caught: unknown) => caught);
    expect((error as ProviderError).classification).toBe("invalid_request");
    expect(runner.calls).toHaveLength(1);
  });

  it("refuses an answer it cannot read, rather than sending an empty message", async () => {
    const error = await adapterOn(new FakeRunner([() => ({ image: "…" })]))
      .generate(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain("does not read");
  });

  it("gives up on an answer that does not come in time, as a retryable timeout, and tries again", async () => {
    const runner = new FakeRunner([() => new Promise(() => undefined), () => ({ response: "In time." })]);
    expect((await adapterOn(runner, 1, 20).generate(request)).message.content).toBe("In time.");
    const error = await adapterOn(new FakeRunner([() => new Promise(() => undefined)]), 0, 20)
      .generate(request)
      .catch((caught: unknown) => caught);
    expect([(error as ProviderError).classification, (error as ProviderError).retryable]).toEqual(["timeout", true]);
  });

  it("stops waiting when the turn is stopped", async () => {
    const controller = new AbortController();
    const runner: WorkersAiRunner = { run: () => new Promise(() => undefined) };
    const pending = adapterOn(runner).generate({ ...request, signal: controller.signal });
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect((error as ProviderError).classification).toBe("cancelled");
  });
});
