import type { Provider } from "../config/providers.ts";
import type { AgentErrorEvent } from "../protocol/events.ts";
import type { UserMessage } from "../protocol/messages.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { Burst } from "./burst.ts";

/**
 * A turn's new messages: ready (a task's prompt, an `/agent` task), or Telegram messages whose files are brought in
 * only once the turn is admitted (downloads and transcriptions cost money, and a paused or spent chat pays nothing).
 */
export type TurnInput = { kind: "ready"; users: UserMessage[] } | { kind: "telegram"; messages: IncomingMessage[] };

/** One turn to run: what started it, its new messages, and the inbox rows it answers. */
export interface TurnRequest {
  /** A guest turn answers someone who summoned the bot in another chat (see guest-turn.ts). */
  kind: "chat" | "task" | "agent" | "guest";
  /** The turn's new messages, in order. */
  input: TurnInput;
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
  /** The turn answers a voice or video note: a chat whose voiceReplies is `when-spoken-to` hears the answer too. */
  spokenTo?: boolean;
  /** Said before the error text when the turn fails (a scheduled task's failure names the task). */
  failureNote?: string;
  /** A chat turn's way in for messages sent right after its own, while it has shown nothing (see Burst). */
  burst?: Burst;
}

/** An admitted turn: its new messages as the model gets them (files brought in). */
export type AdmittedTurn = TurnRequest & { users: UserMessage[] };

export type TurnOutcome =
  | { ok: true; text: string }
  | { ok: false; error: AgentErrorEvent }
  | { ok: "skipped"; reason: "disabled" | "not allowed" | "budget" | "config invalid" };
