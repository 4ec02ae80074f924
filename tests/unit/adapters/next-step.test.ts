import { describe, expect, it } from "vitest";
import { type CutRoom, nextStep } from "../../../src/adapters/next-step.ts";
import type { ModelResponse } from "../../../src/adapters/types.ts";
import type { FinishReason } from "../../../src/protocol/events.ts";
import type { ToolCall } from "../../../src/protocol/messages.ts";

const room = (recoveries = 1, stop?: string): CutRoom => ({ recoveries, stop: () => stop });
const response = (finish: FinishReason, content = "Some text", toolCalls?: ToolCall[]): ModelResponse => ({
  message: { role: "assistant", content, ...(toolCalls ? { toolCalls } : {}) },
  finish,
});
const call = (id: string, name = "remember"): ToolCall => ({ id, name, arguments: '{"fact":"x' });
const OUTPUT = { kind: "length", limit: "output" } as const;

describe("nextStep", () => {
  it("ends a whole answer with its finish reason, and runs the tools a call asked for", () => {
    expect(nextStep(response({ kind: "stop" }), room())).toEqual({ kind: "answer", finish: { kind: "stop" } });
    expect(nextStep(response({ kind: "refusal" }), room())).toEqual({ kind: "answer", finish: { kind: "refusal" } });
    const calls = [call("1"), call("2")];
    expect(nextStep(response({ kind: "tool_calls" }, "", calls), room())).toEqual({
      kind: "tools",
      run: calls,
      cut: [],
    });
    // "Ended for tool calls" without any is a plain answer.
    expect(nextStep(response({ kind: "tool_calls" }), room())).toEqual({ kind: "answer", finish: { kind: "stop" } });
  });

  it("continues a text cut by the output cap, or paused, while a recovery is left and the budget allows", () => {
    expect(nextStep(response(OUTPUT), room())).toEqual({ kind: "continue" });
    expect(nextStep(response({ kind: "paused" }), room())).toEqual({ kind: "continue" });
    expect(nextStep(response(OUTPUT), room(0))).toEqual({ kind: "answer", finish: OUTPUT });
    expect(nextStep(response(OUTPUT), room(1, "budget spent"))).toEqual({ kind: "answer", finish: OUTPUT });
  });

  it("does not continue a cut of the context window, or an empty text", () => {
    const context = { kind: "length", limit: "context" } as const;
    expect(nextStep(response(context), room())).toEqual({ kind: "answer", finish: context });
    expect(nextStep(response(OUTPUT, " "), room())).toEqual({ kind: "answer", finish: OUTPUT });
  });

  it("runs the whole calls of a cut answer and not the last, the one being written", () => {
    const [whole, cut] = [call("1", "recall"), call("2", "remember")];
    expect(nextStep(response(OUTPUT, "", [whole, cut]), room())).toEqual({ kind: "tools", run: [whole], cut: [cut] });
  });

  it("ends the answer naming the cut call when no recovery is left, and runs none of it", () => {
    expect(nextStep(response(OUTPUT, "", [call("1"), call("2", "send_message")]), room(0))).toEqual({
      kind: "answer",
      finish: { kind: "length", limit: "output", toolCall: "send_message" },
    });
  });
});
