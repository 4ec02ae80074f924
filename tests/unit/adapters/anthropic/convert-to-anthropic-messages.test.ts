import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../../../../src/adapters/anthropic/convert-to-anthropic-messages.ts";

describe("toAnthropicMessages", () => {
  it("puts tool results before a user's text in the same turn, and drops empty messages", () => {
    const turns = toAnthropicMessages([
      { role: "user", content: "look it up" },
      { role: "assistant", content: "", toolCalls: [{ id: "c:1", name: "search", arguments: "not json" }] },
      { role: "user", content: "and hurry" },
      { role: "tool", toolCallId: "c:1", toolName: "search", content: "found", isError: true },
      { role: "assistant", content: "  " },
    ]);
    expect(turns).toEqual([
      { role: "user", content: [{ type: "text", text: "look it up" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "c_1", name: "search", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c_1", content: "found", is_error: true },
          { type: "text", text: "and hurry" },
        ],
      },
    ]);
  });
});
