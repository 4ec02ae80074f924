import { type AgentEvent, toolPreview } from "../protocol/events.ts";
import type { HistoryMessage, ToolResultMessage } from "../protocol/messages.ts";
import { errorEventOf } from "./errors.ts";
import type { ModelAdapter, ModelRequest, ModelResponse, ToolExecutor } from "./types.ts";

/** The most model calls one turn may make before it is stopped without an answer. */
const MAX_MODEL_CALLS = 50;

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
 * Yields the events a turn is driven by: `usage` per call, `message` for every message to keep (the assistant's tool
 * calls and each result), `tool_start` before each tool, and one final `result` or `error`.
 */
export async function* runToolLoop(input: ToolLoopInput): AsyncGenerator<AgentEvent> {
  const { adapter, request, executeTool } = input;
  const maxModelCalls = input.maxModelCalls ?? MAX_MODEL_CALLS;
  const messages: HistoryMessage[] = [...request.messages];
  for (let call = 0; call < maxModelCalls; call++) {
    const stop = call === 0 ? undefined : input.stopBeforeCall?.();
    if (stop !== undefined) {
      yield { type: "error", classification: "quota", retryable: false, message: stop };
      return;
    }
    let response: ModelResponse | undefined;
    const callRequest = input.prepareCall ? input.prepareCall({ ...request, messages }) : { ...request, messages };
    try {
      if (input.stream) {
        for await (const part of adapter.stream(callRequest)) {
          // A model's text part is already the event it stands for.
          if (part.type === "text_delta") yield part;
          else response = part.response;
        }
      } else {
        response = await adapter.generate(callRequest);
      }
    } catch (error) {
      yield errorEventOf(error, adapter.label);
      return;
    }
    if (!response) {
      yield { type: "error", classification: "transport", retryable: true, message: `${adapter.label}: no response` };
      return;
    }
    if (response.usage) yield { type: "usage", ...response.usage, ...response.answeredBy };
    const toolCalls = response.message.toolCalls ?? [];
    if (toolCalls.length === 0) {
      yield { type: "result", text: response.message.content };
      return;
    }
    yield { type: "message", message: response.message };
    messages.push(response.message);
    for (const toolCall of toolCalls) {
      yield { type: "tool_start", toolName: toolCall.name, preview: toolPreview(toolCall.arguments) };
      const outcome = await executeTool(toolCall.name, toolCall.arguments);
      const result: ToolResultMessage = {
        role: "tool",
        toolCallId: toolCall.id,
        toolName: toolCall.name,
        content: outcome.content,
        ...(outcome.isError ? { isError: true } : {}),
      };
      yield { type: "message", message: result };
      messages.push(result);
    }
  }
  yield {
    type: "error",
    classification: "internal",
    retryable: false,
    message: `stopped after ${maxModelCalls} model calls without a final answer`,
  };
}
