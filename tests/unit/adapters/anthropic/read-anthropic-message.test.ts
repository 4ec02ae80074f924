import type { Message } from "@anthropic-ai/sdk/resources/messages/messages";
import { describe, expect, it } from "vitest";
import { responseOfMessage } from "../../../../src/adapters/anthropic/read-anthropic-message.ts";

const message = (fields: Partial<Message>): Message =>
  ({
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [],
    stop_reason: "end_turn",
    stop_details: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 2, cache_creation_input_tokens: 1 },
    ...fields,
  }) as Message;

describe("responseOfMessage", () => {
  it("reads the text, the tool uses with their input as JSON text, the stop reason and every input token", () => {
    const response = responseOfMessage(
      message({
        content: [
          { type: "text", text: "Let me check.", citations: null },
          { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } },
        ] as Message["content"],
        stop_reason: "tool_use",
      }),
    );
    expect(response).toEqual({
      message: {
        role: "assistant",
        content: "Let me check.",
        toolCalls: [{ id: "toolu_1", name: "weather", arguments: '{"city":"Oslo"}' }],
      },
      finish: { kind: "tool_calls" },
      usage: { inputTokens: 13, outputTokens: 4, cacheReadTokens: 2, cacheWriteTokens: 1 },
    });
  });

  it("reads a cut answer and a refusal with its explanation", () => {
    expect(responseOfMessage(message({ stop_reason: "max_tokens" })).finish).toEqual({
      kind: "length",
      limit: "output",
    });
    const refused = responseOfMessage(
      message({
        stop_reason: "refusal",
        stop_details: { type: "refusal", category: "cyber", explanation: "Declined: cyber harm." },
      }),
    );
    expect(refused.finish).toEqual({ kind: "refusal", explanation: "Declined: cyber harm." });
  });
});
