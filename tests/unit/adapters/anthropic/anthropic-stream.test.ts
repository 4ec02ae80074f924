import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../../../src/adapters/anthropic/anthropic-adapter.ts";
import { skipWithout } from "../../../fakes/recorded-fixtures.ts";
import { fetchReplaying, streamedCall } from "../replay.ts";

const anthropicReplaying = async (name: string) =>
  new AnthropicAdapter({
    apiKey: "test-key",
    baseUrl: "https://anthropic.invalid",
    maxRetries: 0,
    timeoutMs: 5_000,
    fetch: await fetchReplaying(name, "anthropic"),
  });

/** One recorded stream of the Messages API, replayed through the adapter: what the turn gets of it. */
async function replayed(name: string) {
  const { text, response } = await streamedCall(await anthropicReplaying(name));
  if (response.type !== "response") throw new Error("no response");
  return { text, ...response.response };
}

describe("the Messages API's recorded streams", () => {
  it("reads a plain answer: text, end_turn as stop, usage", async ({ skip }) => {
    skipWithout(skip, "anthropic-text.chunks.txt");
    const answer = await replayed("anthropic-text.chunks.txt");
    expect(answer.message.content).toMatch(/^Hello! I'm doing well, thank you for asking\./);
    expect(answer.text).toBe(answer.message.content);
    expect(answer.finish).toEqual({ kind: "stop" });
    expect(answer.usage).toMatchObject({ inputTokens: 12, outputTokens: 30 });
  });

  it("reads a refusal: the stop reason and the explanation of stop_details", async ({ skip }) => {
    skipWithout(skip, "anthropic-refusal.chunks.txt");
    const answer = await replayed("anthropic-refusal.chunks.txt");
    expect(answer.finish).toEqual({
      kind: "refusal",
      explanation:
        "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
    });
    expect(answer.message.content).toBe("");
    expect(answer.usage).toMatchObject({ inputTokens: 18, outputTokens: 5 });
  });

  it("reads a server-searched answer: its sources, its search, and the input the search added", async ({ skip }) => {
    skipWithout(skip, "anthropic-web-search-tool.1.chunks.txt");
    const answer = await replayed("anthropic-web-search-tool.1.chunks.txt");
    expect(answer.message.content).toMatch(/^Based on my search results/);
    expect(answer.message.content).toMatch(/\n\nSources: \[[^\]]+\]\(https:\/\/[^)]+\)/);
    expect(answer.message.toolCalls).toBeUndefined();
    expect(answer.finish).toEqual({ kind: "stop" });
    // message_delta's counts are final: 15,665 input tokens, not message_start's 2,037.
    expect(answer.usage).toMatchObject({ inputTokens: 15_665, outputTokens: 795, webSearches: 1 });
  });

  it("keeps the answer of a thinking model, not its thinking", async ({ skip }) => {
    skipWithout(skip, "anthropic-clear-thinking.1.chunks.txt");
    const answer = await replayed("anthropic-clear-thinking.1.chunks.txt");
    expect(answer.message.content).toBe("925 ÷ 5 = 185");
  });

  it("takes the final input count of message_delta and survives a repeated message_start", async ({ skip }) => {
    skipWithout(skip, "anthropic-message-delta-input-tokens.chunks.txt", "duplicate-message-start.chunks.txt");
    const pong = await replayed("anthropic-message-delta-input-tokens.chunks.txt");
    expect(pong.message.content).toBe("pong");
    expect(pong.usage).toMatchObject({ inputTokens: 61, outputTokens: 2 });
    const hello = await replayed("duplicate-message-start.chunks.txt");
    expect(hello.message.content).toBe("Hello, World!");
    expect(hello.finish).toEqual({ kind: "stop" });
  });
});
