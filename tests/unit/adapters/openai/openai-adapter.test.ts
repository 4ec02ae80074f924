import { describe, expect, it } from "vitest";
import { OpenAIAdapter } from "../../../../src/adapters/openai/openai-adapter.ts";
import { skipWithout } from "../../../fakes/recorded-fixtures.ts";
import { fetchAnswering, QUESTION } from "../replay.ts";

/** One recorded whole Chat Completions answer, read by the adapter's unstreamed call. */
async function answered(name: string) {
  const adapter = new OpenAIAdapter({
    apiKey: "test-key",
    baseUrl: "https://openai.invalid/v1",
    maxRetries: 0,
    timeoutMs: 5_000,
    fetch: await fetchAnswering(name),
  });
  return adapter.generate(QUESTION);
}

describe("recorded whole Chat Completions answers", () => {
  it("reads DeepSeek's answer cut at its length as a length cut", async ({ skip }) => {
    skipWithout(skip, "deepseek-text.json");
    const answer = await answered("deepseek-text.json");
    expect(answer.message.content).toMatch(/^## \*\*Holiday Name: Gratitude of Small Things Day/);
    expect(answer.finish).toEqual({ kind: "length", limit: "output" });
  });

  it.for([
    ["deepseek-tool-call.json", "call_00_9V0vrf86Pc9aelHCJMZqnJBo", '{"location": "San Francisco"}'],
    ["groq-tool-call.json", "ax9fskhev", "{}"],
    ["mistral-tool-call.json", "gSIMJiOkT", '{"location": "San Francisco"}'],
    ["xai-tool-call.json", "call_93562515", '{"location":"San Francisco"}'],
  ] as const)("reads the weather call of %s", async ([name, id, args], { skip }) => {
    skipWithout(skip, name);
    const answer = await answered(name);
    expect(answer.message).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id, name: "weather", arguments: args }],
    });
    expect(answer.finish).toEqual({ kind: "tool_calls" });
  });

  it("reads plain answers as whole, with their usage", async ({ skip }) => {
    skipWithout(skip, "groq-text.json", "mistral-text.json", "xai-text.json");
    const groq = await answered("groq-text.json");
    expect([groq.finish, groq.usage]).toEqual([{ kind: "stop" }, { inputTokens: 45, outputTokens: 607 }]);
    expect((await answered("mistral-text.json")).message.content).toMatch(/^\*\*Holiday Name: "World Kindness Day/);
    expect((await answered("xai-text.json")).message.content).toBe("Hello");
  });
});
