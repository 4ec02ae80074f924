import type { ToolExecutor } from "../../adapters/types.ts";
import type { TurnPolicy } from "./turn-policy.ts";

/** Said after a result cut at the turn's cap: the same mark for every kind of turn. */
export const CUT_MARK = "\n[cut: this turn's tool results reached their limit]";

/**
 * A turn's tool calls: a tool its policy does not offer is refused (a model may name any), the rest go to the
 * registry (which refuses unknown and disallowed ones), and their results are capped for the whole turn, so many calls cannot flood the context. A result past the
 * cap is cut with a mark that says so; once the cap is reached, calls get an error that tells the model to answer.
 */
export function cappedTools(policy: TurnPolicy, execute: ToolExecutor): ToolExecutor {
  const maxChars = policy.resultCap;
  let fed = 0;
  return async (name, argumentsText) => {
    if (!policy.offers(name)) {
      return { isError: true, content: `Error: "${name}" is not a tool ${policy.actor} may use.` };
    }
    if (fed >= maxChars) {
      return {
        isError: true,
        content: `Error: this turn has already read ${fed.toLocaleString("en-US")} characters of tool results; no more are given. Answer with what you have.`,
      };
    }
    const outcome = await execute(name, argumentsText);
    const room = maxChars - fed;
    fed += Math.min(outcome.content.length, room);
    return outcome.content.length <= room
      ? outcome
      : { ...outcome, content: outcome.content.slice(0, room) + CUT_MARK };
  };
}
