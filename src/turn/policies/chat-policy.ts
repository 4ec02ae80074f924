import type { Settings } from "../../config/settings.ts";
import { budgetStop } from "../engine/stop-conditions.ts";
import type { TurnPolicy } from "../engine/turn-policy.ts";

/**
 * A chat's turn (an `/agent` turn too): every tool the chat allows, streamed to the person watching, stopped at the
 * chat's daily budget; its answer goes to the chat through the turn's display (run-turn.ts).
 */
export function chatPolicy(settings: Settings, budget: Parameters<typeof budgetStop>[0]): TurnPolicy {
  return {
    kind: "chat",
    offers: () => true,
    actor: "this turn",
    instructions: [],
    stream: true,
    stopWhen: [budgetStop(budget)],
    resultCap: settings.toolResultsMaxChars,
  };
}
