import type { Provider } from "../config/providers.ts";
import type { AgentErrorEvent } from "../protocol/events.ts";
import type { UserMessage } from "../protocol/messages.ts";

/** One turn to run: what started it, its new messages, and the inbox rows it answers. */
export interface TurnRequest {
  /** A guest turn answers someone who summoned the bot in another chat (see guest-turn.ts). */
  kind: "chat" | "task" | "agent" | "guest";
  /** The turn's new messages, in order. */
  users: UserMessage[];
  inboxIds: number[];
  userId?: number;
  /** The Telegram message the turn answers (the last one of a batch): acknowledged with a reaction. */
  messageId?: number;
  replyToMessageId?: number;
  /** `/agent` runs one turn on an agent provider whatever the chat's provider. */
  providerOverride?: Provider;
  /** The turn answers a voice or video note: a chat whose voiceReplies is `when-spoken-to` hears the answer too. */
  spokenTo?: boolean;
  /** Said before the error text when the turn fails (a scheduled task's failure names the task). */
  failureNote?: string;
}

export type TurnOutcome =
  | { ok: true; text: string }
  | { ok: false; error: AgentErrorEvent }
  | { ok: "skipped"; reason: "disabled" | "not allowed" | "budget" };
