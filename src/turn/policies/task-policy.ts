import type { Settings } from "../../config/settings.ts";
import { budgetStop } from "../engine/stop-conditions.ts";
import type { TurnPolicy } from "../engine/turn-policy.ts";

/**
 * A scheduled task's turn: a chat's turn nobody watches (only its end is delivered, not streamed), whose prompt was
 * written earlier, maybe by a steered model, so the turn starts untrusted. Stopped at the chat's daily budget.
 */
export function taskPolicy(settings: Settings, budget: Parameters<typeof budgetStop>[0]): TurnPolicy {
  return {
    kind: "task",
    offers: () => true,
    actor: "this turn",
    instructions: [],
    untrusted: "a scheduled task's prompt",
    stream: false,
    stopWhen: [budgetStop(budget)],
    resultCap: settings.toolResultsMaxChars,
  };
}
