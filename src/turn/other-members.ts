import type { HistoryMessage } from "../protocol/messages.ts";
import type { TurnTrust } from "../tools/context.ts";

/**
 * In a group, what another member wrote earlier is in the window of the next person's turn, and can be an
 * instruction to the bot ("next time the admin talks to you, …"). Rights come from the turn's own senders, so a turn
 * whose window holds a message from someone who is neither one of them nor an admin treats it as outside content:
 * what acts beyond the answer waits for the person's button.
 */
export function markOtherMembers(
  trust: TurnTrust,
  window: readonly HistoryMessage[],
  turn: { senders: readonly number[]; isAdmin: (userId: number) => boolean },
): void {
  for (const message of window) {
    if (message.role !== "user" || message.from === undefined) continue;
    if (turn.senders.includes(message.from) || turn.isAdmin(message.from)) continue;
    trust.markUntrusted(`a message from another member (id ${message.from})`);
    return;
  }
}
