import type { Provider } from "../config/providers.ts";
import type { AgentErrorEvent } from "../protocol/events.ts";
import type { UserMessage } from "../protocol/messages.ts";

/** One turn to run: what started it, its new messages, and the inbox rows it answers. */
export interface TurnRequest {
  kind: "chat" | "task" | "agent";
  /** The turn's new messages, in order. */
  users: UserMessage[];
  inboxIds: number[];
  /**
   * Everyone whose messages the turn answers (a task's creator). The turn acts with the least privilege among them:
   * it is an admin's turn only if every sender is an admin, and who "asked" for a task is the least privileged one.
   */
  senders: number[];
  /** The Telegram message the turn answers (the last one of a batch): acknowledged with a reaction. */
  messageId?: number;
  replyToMessageId?: number;
  /** `/agent` runs one turn on the chat's agent (`claude-agent` or `codex-agent`) whatever the chat's provider. */
  providerOverride?: Provider;
  /** Said before the error text when the turn fails (a scheduled task's failure names the task). */
  failureNote?: string;
}

export type TurnOutcome =
  | { ok: true; text: string }
  | { ok: false; error: AgentErrorEvent }
  | { ok: "skipped"; reason: "disabled" | "not allowed" | "budget" };
