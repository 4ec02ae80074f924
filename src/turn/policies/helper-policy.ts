import type { Settings } from "../../config/settings.ts";
import { isHelperTool } from "../../helpers/helper-tools.ts";
import type { sliceStop } from "../engine/stop-conditions.ts";
import type { TurnPolicy } from "../engine/turn-policy.ts";

const HELPER_INSTRUCTIONS =
  "You are working as a background helper for this chat. Nobody watches your steps: only your final answer is " +
  "posted in the chat, as your report. Do the task completely with your tools, then answer with the report itself " +
  "(short, with the sources you used). You cannot send messages, schedule tasks, change the chat's memory or start " +
  "helpers; do not offer to.";

/**
 * A background helper's turn: the chat's tools without those that act beyond the answer (helper-tools.ts), its own
 * instructions, unstreamed, stopped before a call that would pass its slice of the budget; its answer becomes its
 * report, posted in the chat (helper-turn.ts).
 */
export function helperPolicy(
  settings: Settings,
  helper: { untrusted: string | undefined; slice: ReturnType<typeof sliceStop> },
): TurnPolicy {
  return {
    kind: "helper",
    offers: isHelperTool,
    actor: "a background helper",
    instructions: [HELPER_INSTRUCTIONS],
    ...(helper.untrusted === undefined ? {} : { untrusted: helper.untrusted }),
    stream: false,
    stopWhen: [helper.slice],
    resultCap: settings.toolResultsMaxChars,
  };
}
