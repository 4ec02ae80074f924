import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/adapters/errors.ts";
import { CONTINUE_REQUEST, CUT_CALL_RESULT } from "../../../src/adapters/next-step.ts";
import { runToolLoop, type ToolLoopInput } from "../../../src/adapters/tool-loop.ts";
import type {
  ModelAdapter,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ToolExecutor,
} from "../../../src/adapters/types.ts";
import { type AgentEvent, TOOL_PREVIEW_LENGTH } from "../../../src/protocol/events.ts";
import type { AssistantMessage, HistoryMessage, ToolCall } from "../../../src/protocol/messages.ts";
import type { ToolOutcome } from "../../../src/protocol/run-payload.ts";

/** One scripted model call: a response, or an error to throw. */
type Step = ModelResponse | { throws: unknown };

/**
 * A model adapter that answers from a script, one step per call, and records the conversation each call saw (copied
 * at the time of the call). Streaming sends each answer's text as two deltas, then the response.
 */
function scriptedAdapter(steps: Step[]) {
  const seen: HistoryMessage[][] = [];
  const next = (request: ModelRequest): ModelResponse => {
    seen.push(structuredClone([...request.messages]));
    const step = steps.shift();
    if (step === undefined) throw new Error("the script ran out of model calls");
    if ("throws" in step) throw step.throws;
    return step;
  };
  const adapter: ModelAdapter = {
    kind: "model",
    label: "Fake",
    async generate(request) {
      return next(request);
    },
    async *stream(request): AsyncGenerator<ModelStreamPart> {
      const response = next(request);
      const text = response.message.content;
      const half = Math.ceil(text.length / 2);
      if (text) yield { type: "text_delta", text: text.slice(0, half) };
      if (text.length > half) yield { type: "text_delta", text: text.slice(half) };
      yield { type: "response", response };
    },
  };
  return { adapter, seen };
}

const answer = (content: string, usage = { inputTokens: 10, outputTokens: 5 }): ModelResponse => ({
  message: { role: "assistant", content },
  finish: { kind: "stop" },
  usage,
});
const callingTools = (...calls: Array<{ id: string; name: string; arguments: string }>): ModelResponse => ({
  message: { role: "assistant", content: "", toolCalls: calls },
  finish: { kind: "tool_calls" },
  usage: { inputTokens: 20, outputTokens: 3 },
});

const request: ModelRequest = {
  model: "fake-model",
  system: "You are a test.",
  messages: [{ role: "user", content: "hello" }],
  tools: [],
};

const okTools: ToolExecutor = async (name, args) => ({ isError: false, content: `${name} ran with ${args}` });

async function collect(input: Partial<ToolLoopInput> & Pick<ToolLoopInput, "adapter">): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of runToolLoop({ request, executeTool: okTools, ...input })) events.push(event);
  return events;
}

describe("runToolLoop", () => {
  it("yields usage then the result for a plain answer", async () => {
    const { adapter, seen } = scriptedAdapter([answer("Hi there!")]);
    expect(await collect({ adapter })).toEqual([
      { type: "usage", inputTokens: 10, outputTokens: 5 },
      { type: "finish", reason: { kind: "stop" } },
      { type: "result", text: "Hi there!" },
    ]);
    expect(seen).toEqual([request.messages]);
  });

  it("yields no usage when the call reported none, and treats an empty tool list as an answer", async () => {
    const { adapter } = scriptedAdapter([
      { message: { role: "assistant", content: "ok", toolCalls: [] }, finish: { kind: "stop" } },
    ]);
    expect(await collect({ adapter })).toEqual([
      { type: "finish", reason: { kind: "stop" } },
      { type: "result", text: "ok" },
    ]);
  });

  it("runs the tools asked for and gives the next call the calls and results in order", async () => {
    const longArguments = JSON.stringify({ url: `https://example.com/${"a".repeat(500)}` });
    const first = callingTools(
      { id: "call-1", name: "web_fetch", arguments: longArguments },
      { id: "call-2", name: "memory", arguments: '{"key": "x"}' },
    );
    const { adapter, seen } = scriptedAdapter([first, answer("Done.")]);
    const executeTool: ToolExecutor = async (name, args): Promise<ToolOutcome> =>
      name === "memory"
        ? { isError: true, content: "Error: no such key" }
        : { isError: false, content: `page ${args.length}` };

    const events = await collect({ adapter, executeTool });

    const firstResult = {
      role: "tool",
      toolCallId: "call-1",
      toolName: "web_fetch",
      content: `page ${longArguments.length}`,
    } as const;
    const secondResult = {
      role: "tool",
      toolCallId: "call-2",
      toolName: "memory",
      content: "Error: no such key",
      isError: true,
    } as const;
    expect(events).toEqual([
      { type: "usage", inputTokens: 20, outputTokens: 3 },
      { type: "message", message: first.message },
      { type: "tool_start", toolName: "web_fetch", preview: `${longArguments.slice(0, TOOL_PREVIEW_LENGTH - 1)}…` },
      { type: "message", message: firstResult },
      { type: "tool_start", toolName: "memory", preview: '{"key": "x"}' },
      { type: "message", message: secondResult },
      { type: "usage", inputTokens: 10, outputTokens: 5 },
      { type: "finish", reason: { kind: "stop" } },
      { type: "result", text: "Done." },
    ]);
    const preview = events.find((event) => event.type === "tool_start" && event.toolName === "web_fetch");
    expect(preview?.type === "tool_start" && preview.preview.length).toBe(TOOL_PREVIEW_LENGTH);
    // A result without an error carries no isError key at all (toStrictEqual tells a missing key from undefined).
    expect(events[3]).toStrictEqual({ type: "message", message: firstResult });
    expect(seen).toEqual([request.messages, [...request.messages, first.message, firstResult, secondResult]]);
  });

  it("leaves the request's own messages alone", async () => {
    const before = structuredClone(request.messages);
    const { adapter } = scriptedAdapter([callingTools({ id: "c", name: "memory", arguments: "{}" }), answer("ok")]);
    await collect({ adapter });
    expect(request.messages).toEqual(before);
  });

  it("runs the tools one after the other, in the order asked", async () => {
    const log: string[] = [];
    const executeTool: ToolExecutor = async (name) => {
      log.push(`start ${name}`);
      await Promise.resolve();
      await Promise.resolve();
      log.push(`end ${name}`);
      return { isError: false, content: name };
    };
    const { adapter } = scriptedAdapter([
      callingTools(
        { id: "1", name: "a", arguments: "{}" },
        { id: "2", name: "b", arguments: "{}" },
        { id: "3", name: "c", arguments: "{}" },
      ),
      answer("ok"),
    ]);
    await collect({ adapter, executeTool });
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("turns a thrown ProviderError into one error event with its classification", async () => {
    const { adapter, seen } = scriptedAdapter([
      { throws: new ProviderError("quota", "Fake: 429 slow down") },
      answer("never asked"),
    ]);
    expect(await collect({ adapter })).toEqual([
      { type: "error", classification: "quota", retryable: true, message: "Fake: 429 slow down" },
    ]);
    expect(seen).toHaveLength(1);
  });

  it("classifies any other thrown error, after the events of the calls before it", async () => {
    const { adapter } = scriptedAdapter([
      callingTools({ id: "1", name: "memory", arguments: "{}" }),
      { throws: Object.assign(new Error("invalid x-api-key"), { status: 401 }) },
    ]);
    const events = await collect({ adapter });
    expect(events.map((event) => event.type)).toEqual(["usage", "message", "tool_start", "message", "error"]);
    expect(events.at(-1)).toEqual({
      type: "error",
      classification: "auth",
      retryable: false,
      message: "Fake: 401 invalid x-api-key",
    });
  });

  it("stops at maxModelCalls with an internal error", async () => {
    const loop = () => callingTools({ id: "again", name: "memory", arguments: "{}" });
    const { adapter, seen } = scriptedAdapter([loop(), loop(), loop(), loop()]);
    let toolRuns = 0;
    const events = await collect({
      adapter,
      maxModelCalls: 2,
      executeTool: async () => {
        toolRuns++;
        return { isError: false, content: "again" };
      },
    });
    expect(seen).toHaveLength(2);
    expect(toolRuns).toBe(2);
    expect(events.at(-1)).toEqual({
      type: "error",
      classification: "internal",
      retryable: false,
      message: "stopped after 2 model calls without a final answer",
    });
    expect(events.filter((event) => event.type === "error")).toHaveLength(1);
  });

  it("asks stopBeforeCall before every call but the first, and ends with a quota error when it says stop", async () => {
    const { adapter, seen } = scriptedAdapter([
      callingTools({ id: "1", name: "memory", arguments: "{}" }),
      answer("never asked"),
    ]);
    let asked = 0;
    const events = await collect({
      adapter,
      stopBeforeCall: () => {
        asked++;
        return "the chat's daily budget ran out during the turn";
      },
    });
    expect(asked).toBe(1);
    expect(seen).toHaveLength(1);
    expect(events.at(-1)).toEqual({
      type: "error",
      classification: "quota",
      retryable: false,
      message: "the chat's daily budget ran out during the turn",
    });
  });

  it("streams text deltas before the result when asked to", async () => {
    const { adapter } = scriptedAdapter([answer("Hello world")]);
    expect(await collect({ adapter, stream: true })).toEqual([
      { type: "text_delta", text: "Hello " },
      { type: "text_delta", text: "world" },
      { type: "usage", inputTokens: 10, outputTokens: 5 },
      { type: "finish", reason: { kind: "stop" } },
      { type: "result", text: "Hello world" },
    ]);
  });

  it("ends with a transport error when a stream ends without a response", async () => {
    const adapter: ModelAdapter = {
      kind: "model",
      label: "Fake",
      generate: async () => answer("unused"),
      async *stream() {
        yield { type: "text_delta", text: "partial" };
      },
    };
    expect(await collect({ adapter, stream: true })).toEqual([
      { type: "text_delta", text: "partial" },
      { type: "error", classification: "transport", retryable: true, message: "Fake: no response" },
    ]);
  });

  it("keeps an assistant message's text that came with tool calls", async () => {
    const withText: AssistantMessage = {
      role: "assistant",
      content: "Let me look that up.",
      toolCalls: [{ id: "1", name: "web_fetch", arguments: "{}" }],
    };
    const { adapter, seen } = scriptedAdapter([
      { message: withText, finish: { kind: "tool_calls" } },
      answer("Found it."),
    ]);
    const events = await collect({ adapter });
    expect(events[0]).toEqual({ type: "message", message: withText });
    expect(seen[1]?.[1]).toEqual(withText);
  });
});

describe("runToolLoop, after a cut", () => {
  const cut = (content: string, toolCalls?: ToolCall[]): ModelResponse => ({
    message: { role: "assistant", content, ...(toolCalls ? { toolCalls } : {}) },
    finish: { kind: "length", limit: "output" },
    usage: { inputTokens: 10, outputTokens: 100 },
  });

  it("continues a cut answer once, asking the model to go on, and gives the whole text as the result", async () => {
    const { adapter, seen } = scriptedAdapter([cut("The first half, "), answer("and the second.")]);
    const events = await collect({ adapter, stream: true });
    expect(
      events
        .filter((event) => event.type === "text_delta")
        .map((event) => event.text)
        .join(""),
    ).toBe("The first half, and the second.");
    expect(events.slice(-2)).toEqual([
      { type: "finish", reason: { kind: "stop" } },
      { type: "result", text: "The first half, and the second." },
    ]);
    expect(seen[1]!.slice(-2)).toEqual([
      { role: "assistant", content: "The first half, " },
      { role: "user", content: CONTINUE_REQUEST },
    ]);
    // Nothing of the continuation's plumbing is kept in history.
    expect(events.some((event) => event.type === "message")).toBe(false);
  });

  it("continues only once: a second cut ends the answer as cut", async () => {
    const { adapter } = scriptedAdapter([cut("One, "), cut("two, "), answer("never asked")]);
    const events = await collect({ adapter });
    expect(events.slice(-2)).toEqual([
      { type: "finish", reason: { kind: "length", limit: "output" } },
      { type: "result", text: "One, two, " },
    ]);
  });

  it("does not continue past a spent budget: the answer ends as cut, not as an error", async () => {
    const { adapter } = scriptedAdapter([cut("Half")]);
    const events = await collect({ adapter, stopBeforeCall: () => "the budget is spent" });
    expect(events.slice(-2)).toEqual([
      { type: "finish", reason: { kind: "length", limit: "output" } },
      { type: "result", text: "Half" },
    ]);
  });

  it("never runs a cut tool call: the whole ones run, the cut one gets an error result, and the model goes on", async () => {
    const whole = { id: "1", name: "recall", arguments: "{}" };
    const broken = { id: "2", name: "remember", arguments: '{"fact":"The user lik' };
    const ran: string[] = [];
    const executeTool: ToolExecutor = async (name) => {
      ran.push(name);
      return { isError: false, content: "ok" };
    };
    const { adapter, seen } = scriptedAdapter([cut("Let me note that.", [whole, broken]), answer("Noted.")]);
    const events = await collect({ adapter, executeTool });
    expect(ran).toEqual(["recall"]);
    expect(events.filter((event) => event.type === "tool_start").map((event) => event.toolName)).toEqual(["recall"]);
    const kept = {
      role: "assistant",
      content: "Let me note that.",
      toolCalls: [whole, { ...broken, arguments: "{}" }],
    };
    expect(events).toContainEqual({ type: "message", message: kept });
    expect(events).toContainEqual({
      type: "message",
      message: { role: "tool", toolCallId: "2", toolName: "remember", content: CUT_CALL_RESULT, isError: true },
    });
    expect(seen[1]!.at(-1)).toMatchObject({ role: "tool", toolCallId: "2", isError: true });
    expect(events.at(-1)).toEqual({ type: "result", text: "Noted." });
  });

  it("ends the answer naming a tool call cut again, running nothing of it", async () => {
    const ran: string[] = [];
    const executeTool: ToolExecutor = async (name) => {
      ran.push(name);
      return { isError: false, content: "ok" };
    };
    const again = (id: string) => cut("Trying.", [{ id, name: "remember", arguments: '{"fact":"x' }]);
    const { adapter } = scriptedAdapter([again("1"), again("2")]);
    const events = await collect({ adapter, executeTool });
    expect(ran).toEqual([]);
    expect(events.slice(-2)).toEqual([
      { type: "finish", reason: { kind: "length", limit: "output", toolCall: "remember" } },
      { type: "result", text: "Trying." },
    ]);
  });

  it("keeps a continued answer's whole text in the message that then calls tools", async () => {
    const call = { id: "1", name: "recall", arguments: "{}" };
    const withTools: ModelResponse = {
      message: { role: "assistant", content: "half.", toolCalls: [call] },
      finish: { kind: "tool_calls" },
    };
    const { adapter } = scriptedAdapter([cut("The first "), withTools, answer("Done.")]);
    const events = await collect({ adapter });
    expect(events.find((event) => event.type === "message")).toEqual({
      type: "message",
      message: { role: "assistant", content: "The first half.", toolCalls: [call] },
    });
    expect(events.at(-1)).toEqual({ type: "result", text: "Done." });
  });
});
