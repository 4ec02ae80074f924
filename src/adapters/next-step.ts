import type { FinishReason } from "../protocol/events.ts";
import type { ToolCall } from "../protocol/messages.ts";
import type { ModelResponse } from "./types.ts";

/**
 * What the tool loop does after a model call, by how the call ended:
 * - `answer`: the turn's answer, ending as `finish` says;
 * - `tools`: run `run` and give each of `cut` an error result instead (a call cut mid-arguments is never run);
 * - `continue`: the answer was cut by the output cap (or paused by the provider) mid-text: one more call, with the
 *   text so far and a request to go on, whose text is appended to it.
 */
export type NextStep =
  | { kind: "answer"; finish: FinishReason }
  | { kind: "tools"; run: ToolCall[]; cut: ToolCall[] }
  | { kind: "continue" };

/** What the loop may still do about a cut: whether a recovery call is left this turn and the budget allows one. */
export interface CutRoom {
  recoveries: number;
  /** Why no call may be made now (a spent budget), or undefined. */
  stop: () => string | undefined;
}

/**
 * The policy for a call's ending. A whole answer is the answer; tool calls run. A cut is recovered once a turn, when
 * that is sound: a text cut by the output cap (or paused) is continued; a cut tool call (the last call of an answer the
 * cap cut: the one being written) gets an error result asking for a shorter call, while the whole calls before it
 * run. A cut of the context window is not recovered (another call would not fit either), nor an empty text (a model
 * that spent its cap before writing would spend it again), nor anything once the recovery is used or the budget is
 * spent: the answer ends there, saying it was cut (a cut tool call is named, and nothing of that answer runs).
 */
export function nextStep(response: ModelResponse, room: CutRoom): NextStep {
  const { finish } = response;
  const calls = response.message.toolCalls ?? [];
  const recoverable =
    ((finish.kind === "length" && finish.limit === "output") || finish.kind === "paused") &&
    room.recoveries > 0 &&
    room.stop() === undefined;
  if (calls.length === 0) {
    if (recoverable && response.message.content.trim() !== "") return { kind: "continue" };
    // A call that ended "for tool calls" without any is an answer like any other.
    return { kind: "answer", finish: finish.kind === "tool_calls" ? { kind: "stop" } : finish };
  }
  if (finish.kind !== "length") return { kind: "tools", run: calls, cut: [] };
  const cut = calls.at(-1) as ToolCall;
  if (recoverable) return { kind: "tools", run: calls.slice(0, -1), cut: [cut] };
  return { kind: "answer", finish: { ...finish, toolCall: cut.name } };
}

/** What the model is told after its answer was cut mid-text (its text so far is the message before this one). */
export const CONTINUE_REQUEST =
  "[Your answer was cut off before it was finished. Continue it exactly where it stopped: no repetition, no preamble.]";

/** The error result of a tool call that was cut mid-arguments, in place of running it. */
export const CUT_CALL_RESULT =
  "Error: this call was cut off by the output limit before its arguments were complete, so it was not run. " +
  "Make it again with shorter arguments, or split the work into smaller calls.";
