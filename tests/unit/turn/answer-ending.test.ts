import { describe, expect, it } from "vitest";
import { answerEnding } from "../../../src/turn/answer-ending.ts";

describe("answerEnding", () => {
  it("shows and keeps a whole answer as it is, and an empty one as …", () => {
    expect(answerEnding("Hello.", { kind: "stop" })).toEqual({ shown: "Hello.", kept: "Hello." });
    expect(answerEnding("  ", undefined)).toEqual({ shown: "…", kept: "…" });
  });

  it("shows a cut answer with the sentence under it, and keeps it without the sentence", () => {
    expect(answerEnding("The first half", { kind: "length", limit: "output" })).toEqual({
      shown: "The first half\n\n_✂️ The answer was cut off here: it reached the model's output limit._",
      kept: "The first half",
    });
  });

  it("shows only the sentence of a cut with no text", () => {
    const ending = answerEnding("", { kind: "length", limit: "output", toolCall: "remember" });
    expect(ending.shown).toMatch(/^✂️ The model's call of remember was cut off/);
    expect(ending.kept).toBe("…");
  });

  it("shows a refusal or a filtered answer as the sentence alone and keeps nothing", () => {
    expect(answerEnding("Hello..", { kind: "refusal", explanation: "Blocked under the policy." })).toEqual({
      shown: "🚫 The model declined to answer this: “Blocked under the policy.”",
      kept: undefined,
    });
    expect(answerEnding("Partial", { kind: "content_filter" })).toEqual({
      shown: "🚫 The provider's content filter withheld this answer.",
      kept: undefined,
    });
  });
});
