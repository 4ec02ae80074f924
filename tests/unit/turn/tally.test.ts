import { describe, expect, it } from "vitest";
import { Tally } from "../../../src/turn/tally.ts";

const PRICES = new Map([
  ["gpt-test", { input: 1, output: 2 }],
  ["fallback-model", { input: 10, output: 20 }],
]);
const tallyFor = (model = "gpt-test") => new Tally({ provider: "openai", model }, (name) => PRICES.get(name));

describe("Tally", () => {
  it("says what each event means for the display, and keeps count of tools", () => {
    const tally = tallyFor();
    expect(tally.apply({ type: "text_delta", text: "Hel" })).toEqual({ kind: "text", text: "Hel" });
    expect(tally.apply({ type: "tool_start", toolName: "web_fetch", preview: '{"url":"x"}' })).toEqual({
      kind: "tool",
      label: '⚙️ web_fetch: {"url":"x"}',
      starts: true,
    });
    expect(tally.apply({ type: "tool_progress", toolName: "Bash", elapsedSeconds: 4.6 })).toEqual({
      kind: "tool",
      label: "⚙️ Bash (5 s)",
      starts: false,
    });
    expect(tally.apply({ type: "session_init", sessionId: "s-1" })).toEqual({ kind: "session", sessionId: "s-1" });
    expect(tally.apply({ type: "adapter_stderr", message: "retrying" })).toEqual({ kind: "log", message: "retrying" });
    expect(tally.toolCalls).toBe(1);
    expect(tally.finished).toBe(false);
  });

  it("keeps the messages to store and ends at the result", () => {
    const tally = tallyFor();
    const call = {
      role: "assistant" as const,
      content: "",
      toolCalls: [{ id: "c1", name: "recall", arguments: "{}" }],
    };
    expect(tally.apply({ type: "message", message: call })).toEqual({ kind: "none" });
    expect(tally.apply({ type: "result", text: "done" })).toEqual({ kind: "done" });
    expect(tally.produced).toEqual([call]);
    expect(tally.result).toBe("done");
    expect(tally.finished).toBe(true);
  });

  it("keeps how the answer ended, which is not its end, and forgets it when the call starts over", () => {
    const tally = tallyFor();
    const refusal = { kind: "refusal" as const, explanation: "Not this." };
    expect(tally.apply({ type: "finish", reason: refusal })).toEqual({ kind: "none" });
    expect(tally.finished).toBe(false);
    expect(tally.finish).toEqual(refusal);
    tally.restart();
    expect(tally.finish).toBeUndefined();
  });

  it("ends at an error, keeping it", () => {
    const tally = tallyFor();
    const error = { type: "error" as const, classification: "overloaded" as const, retryable: true, message: "busy" };
    expect(tally.apply(error)).toEqual({ kind: "done" });
    expect(tally.error).toEqual(error);
    expect(tally.finished).toBe(true);
  });

  it("prices each call by the model that made it, and records the last one as the answerer", () => {
    const tally = tallyFor();
    tally.apply({ type: "usage", inputTokens: 1_000_000, outputTokens: 0 });
    expect(tally.cost).toBeCloseTo(1);
    tally.apply({
      type: "usage",
      provider: "anthropic",
      model: "fallback-model",
      inputTokens: 0,
      outputTokens: 1_000_000,
    });
    expect(tally.cost).toBeCloseTo(21);
    expect(tally.usage).toEqual({ inputTokens: 1_000_000, outputTokens: 1_000_000 });
    expect(tally.answeredBy).toEqual({ provider: "anthropic", model: "fallback-model" });
  });

  it("starts a dropped call over: forgets what it produced and how it ended, keeps its tokens and cost", () => {
    const tally = tallyFor();
    tally.apply({ type: "usage", inputTokens: 1_000_000, outputTokens: 10 });
    tally.apply({ type: "message", message: { role: "assistant", content: "", toolCalls: [] } });
    tally.apply({ type: "result", text: "an answer nobody saw" });
    tally.restart();
    expect(tally.finished).toBe(false);
    expect(tally.result).toBeUndefined();
    expect(tally.produced).toEqual([]);
    expect(tally.tokens).toBe(1_000_010);
    expect(tally.cost).toBeCloseTo(1.00002);
  });

  it("has no cost when no call's model has a price", () => {
    const tally = tallyFor("unpriced");
    tally.apply({ type: "usage", inputTokens: 500, outputTokens: 500 });
    expect(tally.cost).toBeNull();
    expect(tally.usage).toEqual({ inputTokens: 500, outputTokens: 500 });
  });

  it("lists the tool steps with their arguments, and each outcome from its tool's result", () => {
    const tally = tallyFor();
    tally.apply({ type: "tool_start", toolName: "web_fetch", preview: '{"url":"https://a.example"}' });
    tally.apply({ type: "tool_start", toolName: "web_fetch", preview: '{"url":"https://b.example"}' });
    tally.apply({ type: "tool_start", toolName: "recall", preview: "{}" });
    const result = (toolName: string, content: string, isError?: boolean) => ({
      type: "message" as const,
      message: {
        role: "tool" as const,
        toolCallId: `c-${content}`,
        toolName,
        content,
        ...(isError ? { isError } : {}),
      },
    });
    tally.apply(result("web_fetch", "page a"));
    tally.apply(result("web_fetch", "Error: 404", true));
    expect(tally.steps).toEqual([
      { tool: "web_fetch", argument: '{"url":"https://a.example"}', outcome: { ok: true, text: "page a" } },
      { tool: "web_fetch", argument: '{"url":"https://b.example"}', outcome: { ok: false, text: "Error: 404" } },
      { tool: "recall", argument: "{}" },
    ]);
  });
});
