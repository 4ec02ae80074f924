import type { AgentEvent } from "../../protocol/events.ts";

/**
 * A reason to end a tool loop before its next model call (as vercel/ai's `stopWhen`: any condition stops it). A
 * condition may watch the loop's events (a helper's slice counts each call's usage to foresee the next one).
 */
export interface StopCondition {
  observe?(event: AgentEvent): void;
  /** Why the loop must stop now (said to the chat as a quota error), or undefined to go on. */
  reason(): string | undefined;
}

/**
 * What makes a chat's turn, a scheduled task's, a guest's or a helper's what it is; the engine (turn-engine.ts) does
 * the rest the same way for all: the tools, the system prompt, the result cap, the loop and how a stop is classified.
 */
export interface TurnPolicy {
  kind: "chat" | "task" | "guest" | "helper";
  /** Which of the chat's allowed tools (its MCP servers' included) this kind of turn may offer. */
  offers(toolName: string): boolean;
  /** Who is refused a tool it was not offered, in the refusal's words ("a background helper"). */
  actor: string;
  /** Sections after the one system prompt (a helper's instructions). */
  instructions: readonly string[];
  /** What the turn has read from outside the chat before it starts (a task's prompt), if the kind says so. */
  untrusted?: string;
  /** A guest turn: the summoner's display name, for the prompt. */
  guestOf?: string;
  /** Whether each model call is streamed (someone watches the turn) or only its end is wanted. */
  stream: boolean;
  /** Checked before every model call after the first. */
  stopWhen: readonly StopCondition[];
  /** Characters of tool results the whole turn may read. */
  resultCap: number;
}
