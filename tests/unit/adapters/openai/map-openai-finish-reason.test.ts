import { describe, expect, it } from "vitest";
import { mapOpenAIFinishReason } from "../../../../src/adapters/openai/map-openai-finish-reason.ts";

describe("mapOpenAIFinishReason", () => {
  it.each([
    ["stop", { kind: "stop" }],
    ["length", { kind: "length", limit: "output" }],
    ["tool_calls", { kind: "tool_calls" }],
    ["function_call", { kind: "tool_calls" }],
    ["content_filter", { kind: "content_filter" }],
    ["model_length", { kind: "length", limit: "context" }],
  ])("%s → %o", (finishReason, finish) => {
    expect(mapOpenAIFinishReason(finishReason)).toEqual(finish);
  });

  it("makes a refusal of the model's own words, whatever the finish reason", () => {
    expect(mapOpenAIFinishReason("stop", " I can't help with that. ")).toEqual({
      kind: "refusal",
      explanation: "I can't help with that.",
    });
  });

  it("keeps a value it does not know raw, and a missing one as none", () => {
    expect(mapOpenAIFinishReason("insufficient_system_resource")).toEqual({
      kind: "other",
      raw: "insufficient_system_resource",
    });
    expect(mapOpenAIFinishReason(null)).toEqual({ kind: "other", raw: "none" });
    expect(mapOpenAIFinishReason("constructor")).toEqual({ kind: "other", raw: "constructor" });
  });
});
