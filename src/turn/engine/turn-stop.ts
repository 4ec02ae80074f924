import type { AgentErrorEvent } from "../../protocol/events.ts";
import { TURN_TIME_LIMIT } from "../../reply/error-text.ts";
import type { StopReason } from "../active-run.ts";
import type { Tally } from "../tally.ts";

/**
 * How a stopped turn is recorded, the same for every kind: `/stop` (or its button) is `cancelled`, the turn's time
 * limit is `timeout`. (A guest's /stop was recorded as a timeout before; now it is a cancel like a chat's.)
 */
export function stopError(reason: StopReason): AgentErrorEvent {
  switch (reason) {
    case "deadline":
      return { type: "error", classification: "timeout", retryable: false, message: TURN_TIME_LIMIT };
    case "stopped":
      return { type: "error", classification: "cancelled", retryable: false, message: "stopped" };
  }
}

/** Why a turn has no answer: it was stopped or ran out of time, its adapter failed, or it ended without a result. */
export function endingError(
  stopReason: StopReason | undefined,
  tally: Tally,
  label: string,
): AgentErrorEvent | undefined {
  if (stopReason !== undefined) return stopError(stopReason);
  if (tally.error) return tally.error;
  return tally.result === undefined
    ? { type: "error", classification: "internal", retryable: true, message: `${label}: no answer` }
    : undefined;
}
