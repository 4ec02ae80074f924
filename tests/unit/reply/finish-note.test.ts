import { describe, expect, it } from "vitest";
import type { FinishReason } from "../../../src/protocol/events.ts";
import { finishNote } from "../../../src/reply/finish-note.ts";

describe("finishNote", () => {
  it("says nothing of a normal end, or of one no adapter reported", () => {
    expect(finishNote({ kind: "stop" })).toBeUndefined();
    expect(finishNote({ kind: "tool_calls" })).toBeUndefined();
    expect(finishNote(undefined)).toBeUndefined();
  });

  it.each<[FinishReason, string]>([
    [{ kind: "length", limit: "output" }, "✂️ The answer was cut off here: it reached the model's output limit."],
    [
      { kind: "length", limit: "context" },
      "✂️ The answer was cut off here: it reached the end of the model's context window.",
    ],
    [
      { kind: "length", limit: "output", toolCall: "send_message" },
      "✂️ The model's call of send_message was cut off at the model's output limit before it was complete, so it was not run.",
    ],
    [{ kind: "content_filter" }, "🚫 The provider's content filter withheld this answer."],
    [{ kind: "refusal" }, "🚫 The model declined to answer this."],
    [
      { kind: "refusal", explanation: "It could enable harm." },
      "🚫 The model declined to answer this: “It could enable harm.”",
    ],
    [{ kind: "paused" }, "✂️ The answer stopped before it was finished: the provider paused it."],
    [
      { kind: "other", raw: "insufficient_system_resource" },
      "⚠️ The model stopped for a reason this bot does not know (insufficient_system_resource), so the answer may be incomplete.",
    ],
  ])("%o → %s", (finish, sentence) => {
    expect(finishNote(finish)).toBe(sentence);
  });
});
