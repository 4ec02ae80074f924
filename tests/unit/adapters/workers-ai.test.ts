import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/adapters/errors.ts";
import { OpenAIAdapter } from "../../../src/adapters/openai.ts";
import type { ModelRequest, ModelStreamPart } from "../../../src/adapters/types.ts";
import {
  BINDING_BASE_URL,
  bindingFetch,
  statusOfBindingError,
  WORKERS_AI_MAX_TOKENS,
  type WorkersAiRunner,
} from "../../../src/adapters/workers-ai.ts";

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

function adapterOn(runner: WorkersAiRunner, maxRetries = 0): OpenAIAdapter {
  return new OpenAIAdapter({
    label: "Workers AI",
    apiKey: "binding",
    baseUrl: BINDING_BASE_URL,
    fetch: bindingFetch(runner),
    maxRetries,
    timeoutMs: 5_000,
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
  tools: [
    {
      name: "weather",
      description: "The weather in a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
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

    const [call] = runner.calls;
    expect(call!.model).toBe(MODEL);
    expect(call!.inputs.max_tokens).toBe(WORKERS_AI_MAX_TOKENS);
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
    const { message } = await adapterOn(runner).generate(request);
    expect(message.toolCalls?.map((call) => [call.name, call.arguments])).toEqual([
      ["weather", '{"city":"Oslo"}'],
      ["time", "{}"],
    ]);
    const ids = message.toolCalls!.map((call) => call.id);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });

  it("reads the newer models' OpenAI-format answer, tool calls included", async () => {
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
    ]);
    const response = await adapterOn(runner).generate(request);
    expect(response.message.toolCalls).toEqual([{ id: "call_9", name: "weather", arguments: '{"city":"Rome"}' }]);
    expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
  });

  it("answers a streamed call with the whole answer at once", async () => {
    const runner = new FakeRunner([
      () => ({ response: "Streamed whole.", usage: { prompt_tokens: 3, completion_tokens: 2 } }),
    ]);
    const parts = await collect(adapterOn(runner).stream(request));
    expect(parts).toEqual([
      { type: "text_delta", text: "Streamed whole." },
      {
        type: "response",
        response: {
          message: { role: "assistant", content: "Streamed whole." },
          usage: { inputTokens: 3, outputTokens: 2 },
        },
      },
    ]);
    // The binding is asked for a whole answer, never a stream it would answer in its own format.
    expect(runner.calls[0]!.inputs.stream).toBeUndefined();
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
    expect((error as ProviderError).message).toContain("Workers AI: 503");
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

  it("stops waiting when the turn is stopped", async () => {
    const controller = new AbortController();
    const runner: WorkersAiRunner = { run: () => new Promise(() => undefined) };
    const pending = adapterOn(runner).generate({ ...request, signal: controller.signal });
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect((error as ProviderError).classification).toBe("cancelled");
  });
});

describe("statusOfBindingError", () => {
  it.each([
    ["3040: Capacity temporarily exceeded, please try again.", 503],
    ["4006: you have used up your daily free allocation of 10,000 neurons", 429],
    ["3036: Account limited: rate limit exceeded", 429],
    ["3007: Request timeout", 504],
    ["5006: Error: required properties at '/' are 'messages'", 400],
    ["No such model @cf/nobody/nothing or task", 400],
    ["Something broke", 500],
  ])("%s → %i", (message, status) => {
    expect(statusOfBindingError(message)).toBe(status);
  });
});
