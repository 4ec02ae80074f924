import { describe, expect, it } from "vitest";
import { mapAnthropicFinishReason } from "../../../../src/adapters/anthropic/map-anthropic-finish-reason.ts";

describe("mapAnthropicFinishReason", () => {
  it.each([
    ["end_turn", { kind: "stop" }],
    ["stop_sequence", { kind: "stop" }],
    ["max_tokens", { kind: "length", limit: "output" }],
    ["model_context_window_exceeded", { kind: "length", limit: "context" }],
    ["tool_use", { kind: "tool_calls" }],
    ["pause_turn", { kind: "paused" }],
  ])("%s → %o", (stopReason, finish) => {
    expect(mapAnthropicFinishReason(stopReason)).toEqual(finish);
  });

  it("gives a refusal the explanation of stop_details, trimmed, or none", () => {
    expect(mapAnthropicFinishReason("refusal", { explanation: "  Blocked under the policy. " })).toEqual({
      kind: "refusal",
      explanation: "Blocked under the policy.",
    });
    expect(mapAnthropicFinishReason("refusal", { explanation: null })).toEqual({ kind: "refusal" });
    expect(mapAnthropicFinishReason("refusal", null)).toEqual({ kind: "refusal" });
  });

  it("keeps a reason it does not know raw, and a missing one as none", () => {
    expect(mapAnthropicFinishReason("compaction")).toEqual({ kind: "other", raw: "compaction" });
    expect(mapAnthropicFinishReason(null)).toEqual({ kind: "other", raw: "none" });
    expect(mapAnthropicFinishReason("toString")).toEqual({ kind: "other", raw: "toString" });
  });
});
