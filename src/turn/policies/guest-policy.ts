import type { Settings } from "../../config/settings.ts";
import { budgetStop } from "../engine/stop-conditions.ts";
import type { TurnPolicy } from "../engine/turn-policy.ts";

/**
 * The tools a guest turn is offered: only reading public web pages. Everything else acts beyond the one answer
 * (send_message, schedule_task and the task tools, generate_image's photo), writes the summoner's own data from
 * another chat (remember, forget), or reads it into a chat of other people (recall, list_tasks); MCP tools are left
 * out because what they do is not known here.
 */
const GUEST_TOOLS: ReadonlySet<string> = new Set(["web_fetch"]);

/**
 * A guest's turn, summoned into a chat the bot is not in: one unstreamed answer (posted as the inline query's one
 * message, guest-turn.ts), from a query that came from another chat, stopped at the summoner's daily budget.
 */
export function guestPolicy(
  settings: Settings,
  guest: { name: string; budget: Parameters<typeof budgetStop>[0] },
): TurnPolicy {
  return {
    kind: "guest",
    offers: (name) => GUEST_TOOLS.has(name),
    actor: "a guest turn",
    instructions: [],
    untrusted: "a guest query from another chat",
    guestOf: guest.name,
    stream: false,
    stopWhen: [budgetStop(guest.budget)],
    resultCap: settings.toolResultsMaxChars,
  };
}
