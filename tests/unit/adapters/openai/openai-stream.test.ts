import { describe, expect, it } from "vitest";
import { OpenAIAdapter } from "../../../../src/adapters/openai/openai-adapter.ts";
import { skipWithout } from "../../../fakes/recorded-fixtures.ts";
import { fetchReplaying, streamedCall } from "../replay.ts";

/** One recorded Chat Completions stream (OpenAI's or a compatible server's), replayed through the adapter. */
async function replayed(name: string) {
  const adapter = new OpenAIAdapter({
    apiKey: "test-key",
    baseUrl: "https://openai.invalid/v1",
    maxRetries: 0,
    timeoutMs: 5_000,
    fetch: await fetchReplaying(name, "chat-completions"),
  });
  const { text, response } = await streamedCall(adapter);
  if (response.type !== "response") throw new Error("no response");
  return { text, ...response.response };
}

describe("recorded Chat Completions streams", () => {
  it("reads OpenAI's answer: its text as streamed, stop, and the usage chunk after it", async ({ skip }) => {
    skipWithout(skip, "openai-text.chunks.txt");
    const answer = await replayed("openai-text.chunks.txt");
    expect(answer.message.content).toMatch(/^\*\*Holiday Name:\*\* Harmony Day/);
    expect(answer.message.content).toHaveLength(1724);
    expect(answer.text).toBe(answer.message.content);
    expect(answer.finish).toEqual({ kind: "stop" });
    expect(answer.usage).toEqual({ inputTokens: 16, outputTokens: 300, cacheReadTokens: 0 });
  });

  it("reads DeepSeek's answer cut at its length as a length cut, never as whole", async ({ skip }) => {
    skipWithout(skip, "deepseek-text.chunks.txt");
    const answer = await replayed("deepseek-text.chunks.txt");
    expect(answer.message.content).toMatch(/^## \*\*Holiday Name:\*\* Starlight Remembrance/);
    expect(answer.finish).toEqual({ kind: "length", limit: "output" });
    expect(answer.usage).toMatchObject({ inputTokens: 13, outputTokens: 400 });
  });

  it.for([
    ["xai-tool-call.chunks.txt", '{"location":"San Francisco"}', { inputTokens: 307, outputTokens: 26 }],
    ["deepseek-tool-call.chunks.txt", '{"location": "San Francisco"}', { inputTokens: 339, outputTokens: 83 }],
    ["mistral-tool-call.chunks.txt", '{"location": "San Francisco"}', { inputTokens: 124, outputTokens: 22 }],
    // Groq's stream reports its usage in x_groq.
    ["groq-tool-call.chunks.txt", "{}", { inputTokens: 210, outputTokens: 15 }],
  ] as const)("puts together the weather call of %s, with its usage", async ([name, args, usage], { skip }) => {
    skipWithout(skip, name);
    const answer = await replayed(name);
    expect(answer.message.toolCalls).toEqual([{ id: expect.any(String), name: "weather", arguments: args }]);
    expect(answer.message.toolCalls![0]!.id).not.toBe("");
    expect(answer.finish).toEqual({ kind: "tool_calls" });
    expect(answer.usage).toMatchObject(usage);
  });

  it("reads a call that arrives in pieces with an empty name after its first", async ({ skip }) => {
    skipWithout(skip, "mistral-incremental-tool-call.chunks.txt");
    const answer = await replayed("mistral-incremental-tool-call.chunks.txt");
    expect(answer.message.toolCalls).toEqual([
      { id: "chatcmpl-tool-9f149c74c42f265b", name: "webSearchTool", arguments: '{"query": "current Berlin weather"}' },
    ]);
  });

  it("keeps a reasoning model's answer, not its reasoning (DeepSeek's reasoning_content, Mistral's parts)", async ({
    skip,
  }) => {
    skipWithout(skip, "deepseek-reasoning.chunks.txt", "mistral-reasoning.chunks.txt");
    expect((await replayed("deepseek-reasoning.chunks.txt")).message.content).toBe(
      'The word "strawberry" contains three "r"s.',
    );
    const mistral = await replayed("mistral-reasoning.chunks.txt");
    expect(mistral.message.content).toBe("2 + 2 = 4");
    expect(mistral.text).toBe("2 + 2 = 4");
  });

  it("reads Groq's, Mistral's and xAI's plain answers as whole, with their usage", async ({ skip }) => {
    skipWithout(skip, "groq-text.chunks.txt", "mistral-text.chunks.txt", "xai-text.chunks.txt");
    const groq = await replayed("groq-text.chunks.txt");
    expect(groq.message.content).toMatch(/^Introducing "Luminaria"/);
    expect(groq.usage).toMatchObject({ inputTokens: 45, outputTokens: 662 });
    expect((await replayed("mistral-text.chunks.txt")).message.content).toBe("Hello, world! This is a test response.");
    const xai = await replayed("xai-text.chunks.txt");
    expect([xai.message.content, xai.finish]).toEqual(["Hello", { kind: "stop" }]);
  });
});
