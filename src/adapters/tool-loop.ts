import { type AgentErrorEvent, type AgentEvent, toolPreview } from "../protocol/events.ts";
import type { AssistantMessage, HistoryMessage, ToolCall, ToolResultMessage } from "../protocol/messages.ts";
import { errorEventOf } from "./errors.ts";
import { CONTINUE_REQUEST, CUT_CALL_RESULT, nextStep } from "./next-step.ts";
import type { ModelAdapter, ModelRequest, ModelResponse, ToolExecutor } from "./types.ts";

/** The most model calls one turn may make before it is stopped without an answer. */
const MAX_MODEL_CALLS = 50;
/** Cuts a turn recovers from (a continued answer or a cut tool call asked again); the next cut ends the answer. */
const RECOVERIES = 1;

export interface ToolLoopInput {
  adapter: ModelAdapter;
  request: ModelRequest;
  executeTool: ToolExecutor;
  maxModelCalls?: number;
  /** Asked before every call after the first: a reason (e.g. a spent budget) ends the loop with a quota error. */
  stopBeforeCall?: () => string | undefined;
  /** Stream each call, yielding `text_delta` events as the text arrives. */
  stream?: boolean;
  /** What changes per call (a server search's remaining allowance): applied to the request before each one. */
  prepareCall?: (request: ModelRequest) => ModelRequest;
}

/**
 * The function-calling loop, once for every model adapter: call the model; if it asked for tools, run them in order,
 * add the calls and their results to the conversation and call it again; stop at its answer, an error, or the cap.
 * How each call ended decides what follows (see next-step.ts): an answer cut by the output cap is continued once, a
 * tool call cut mid-arguments is never run. Yields the events a turn is driven by: `usage` per call, `message` for
 * every message to keep (the assistant's tool calls and each result), `tool_start` before each tool, and at the end
 * `finish` and `result`, or an `error`.
 */
export async function* runToolLoop(input: ToolLoopInput): AsyncGenerator<AgentEvent> {
  const { request } = input;
  const maxModelCalls = input.maxModelCalls ?? MAX_MODEL_CALLS;
  const messages: HistoryMessage[] = [...request.messages];
  const room = { recoveries: RECOVERIES, stop: () => input.stopBeforeCall?.() };
  // The text of a cut answer being continued, which the next call's text is appended to.
  let carried = "";
  for (let call = 0; call < maxModelCalls; call++) {
    const stop = call === 0 ? undefined : input.stopBeforeCall?.();
    if (stop !== undefined) {
      yield { type: "error", classification: "quota", retryable: false, message: stop };
      return;
    }
    const callRequest = input.prepareCall ? input.prepareCall({ ...request, messages }) : { ...request, messages };
    const response = yield* callModel(input, callRequest);
    if (!isResponse(response)) {
      yield response;
      return;
    }
    if (response.usage) yield { type: "usage", ...response.usage, ...response.answeredBy };
    const text = carried + response.message.content;
    const step = nextStep(response, room);
    switch (step.kind) {
      case "answer":
        yield { type: "finish", reason: step.finish };
        yield { type: "result", text };
        return;
      case "continue":
        room.recoveries--;
        messages.push({ role: "assistant", content: response.message.content });
        messages.push({ role: "user", content: CONTINUE_REQUEST });
        carried = text;
        break;
      case "tools": {
        if (step.cut.length > 0) room.recoveries--;
        const sent = withoutCutArguments(response.message, step.cut);
        // History keeps the whole text of a continued answer in the message that calls the tools.
        yield { type: "message", message: { ...sent, content: text } };
        messages.push(sent);
        carried = "";
        for (const toolCall of sent.toolCalls ?? []) {
          const cut = step.cut.some((candidate) => candidate.id === toolCall.id);
          const result = yield* runTool(input, toolCall, cut);
          messages.push(result);
        }
        break;
      }
    }
  }
  yield {
    type: "error",
    classification: "internal",
    retryable: false,
    message: `stopped after ${maxModelCalls} model calls without a final answer`,
  };
}

/** One model call, streamed or not: its text deltas as they come, then its response or its failure as an error. */
async function* callModel(
  input: ToolLoopInput,
  request: ModelRequest,
): AsyncGenerator<AgentEvent, ModelResponse | AgentErrorEvent> {
  const { adapter } = input;
  let response: ModelResponse | undefined;
  try {
    if (input.stream) {
      for await (const part of adapter.stream(request)) {
        // A model's text part is already the event it stands for.
        if (part.type === "text_delta") yield part;
        else response = part.response;
      }
    } else {
      response = await adapter.generate(request);
    }
  } catch (error) {
    return errorEventOf(error, adapter.label);
  }
  return (
    response ?? {
      type: "error",
      classification: "transport",
      retryable: true,
      message: `${adapter.label}: no response`,
    }
  );
}

function isResponse(value: ModelResponse | AgentErrorEvent): value is ModelResponse {
  return !("type" in value);
}

/** A tool call's run (or, for a cut call, its error result without running it), as the result message to keep. */
async function* runTool(
  input: ToolLoopInput,
  toolCall: ToolCall,
  cut: boolean,
): AsyncGenerator<AgentEvent, ToolResultMessage> {
  let outcome: { content: string; isError: boolean };
  if (cut) {
    outcome = { content: CUT_CALL_RESULT, isError: true };
  } else {
    yield { type: "tool_start", toolName: toolCall.name, preview: toolPreview(toolCall.arguments) };
    outcome = await input.executeTool(toolCall.name, toolCall.arguments);
  }
  const result: ToolResultMessage = {
    role: "tool",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: outcome.content,
    ...(outcome.isError ? { isError: true } : {}),
  };
  yield { type: "message", message: result };
  return result;
}

/** The assistant's message as it is kept: a cut call's half-written arguments are not (the call never ran). */
function withoutCutArguments(message: AssistantMessage, cut: readonly ToolCall[]): AssistantMessage {
  if (cut.length === 0) return message;
  return {
    ...message,
    toolCalls: (message.toolCalls ?? []).map((call) =>
      cut.some((candidate) => candidate.id === call.id) ? { ...call, arguments: "{}" } : call,
    ),
  };
}
