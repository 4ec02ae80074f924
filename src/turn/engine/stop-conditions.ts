import { addSpend, exhaustedLimit } from "../../budget/budget.ts";
import type { PaidCalls } from "../../budget/paid-calls.ts";
import type { DailySpend } from "../../budget/spend-slot.ts";
import type { EffectiveConfig } from "../../config/chat-config.ts";
import { helperStop } from "../../helpers/helper-budget.ts";
import type { HelperSlice } from "../../helpers/helper-job.ts";
import { type AgentEvent, BUDGET_RAN_OUT } from "../../protocol/events.ts";
import type { Tally } from "../tally.ts";
import type { StopCondition } from "./turn-policy.ts";

/**
 * A long tool loop stops at the chat's daily budget rather than running past it: the day's spend (`spent()`, which
 * holds what helpers started meanwhile were given) plus this turn's own model calls and paid calls.
 */
export function budgetStop(meter: {
  spent: () => DailySpend;
  tally: Tally;
  paid: PaidCalls;
  budget: EffectiveConfig["budget"];
}): StopCondition {
  const { tally, paid } = meter;
  return {
    reason: () =>
      exhaustedLimit(addSpend(meter.spent(), tally.usage, tally.costUsd + paid.costUsd), meter.budget) === undefined
        ? undefined
        : BUDGET_RAN_OUT,
  };
}

/** A helper stops before a call that would pass its slice of the budget, foreseen by the last call's size. */
export function sliceStop(
  slice: HelperSlice,
  meter: { tally: Tally; paid: PaidCalls },
): StopCondition & {
  stopped: string | undefined;
} {
  const { tally, paid } = meter;
  const spentTokens = () => tally.usage.inputTokens + tally.usage.outputTokens;
  let before = { tokens: 0, costUsd: 0 };
  let last = { tokens: 0, costUsd: 0 };
  const condition = {
    stopped: undefined as string | undefined,
    observe(event: AgentEvent) {
      if (event.type !== "usage") return;
      const now = { tokens: spentTokens(), costUsd: tally.costUsd };
      last = { tokens: now.tokens - before.tokens, costUsd: now.costUsd - before.costUsd };
      before = now;
    },
    reason() {
      condition.stopped = helperStop(slice, { tokens: spentTokens(), costUsd: tally.costUsd + paid.costUsd }, last);
      return condition.stopped;
    },
  };
  return condition;
}
