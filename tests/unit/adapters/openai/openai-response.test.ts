import { describe, expect, it } from "vitest";
import { contentText, responseOfCompletion } from "../../../../src/adapters/openai/openai-response.ts";

describe("responseOfCompletion", () => {
  it("gives a refusal's words as the content, and says it was a refusal", () => {
    const response = responseOfCompletion({
      text: "",
      refusal: "I'm sorry, I can't help with that.",
      toolCalls: [],
      finishReason: "stop",
      usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
    });
    expect(response).toEqual({
      message: { role: "assistant", content: "I'm sorry, I can't help with that." },
      finish: { kind: "refusal", explanation: "I'm sorry, I can't help with that." },
      usage: { inputTokens: 5, outputTokens: 9 },
    });
  });

  it("keeps the text and the finish reason when there is text beside a refusal", () => {
    const response = responseOfCompletion({
      text: "Partly:",
      refusal: "no",
      toolCalls: [],
      finishReason: "length",
      usage: null,
    });
    expect([response.message.content, response.finish, response.usage]).toEqual([
      "Partly:",
      { kind: "length", limit: "output" },
      undefined,
    ]);
  });
});

describe("contentText", () => {
  it("reads a string, and of parts only the text parts", () => {
    expect(contentText("plain")).toBe("plain");
    expect(
      contentText([
        { type: "thinking", thinking: [{ type: "text", text: "hmm" }] },
        { type: "text", text: "4" },
      ]),
    ).toBe("4");
    expect(contentText(null)).toBe("");
  });
});
