import * as z from "zod";
import type { Provider } from "../config/providers.ts";
import { type Slot, slot } from "../lib/slot.ts";

/** The claude-agent runner's session, resumed by the next claude-agent turn. */
export const agentSessionIdSlot = slot("agentSessionId", z.string());
/** The codex-agent runner's thread, resumed by the next codex-agent turn. */
export const codexSessionIdSlot = slot("codexSessionId", z.string());
/** When the chat was last told that its stored config is invalid (at most once an hour). */
export const configProblemNoticeAtSlot = slot("configProblemNoticeAt", z.number());

/**
 * A turn's answer recorded and handed over for delivery (see answer-handover.ts), until it is delivered or queued in
 * the outbox: the chat's object died in between when its next drain finds it, and sends it then.
 */
export const handedOverSlot = slot("handedOver", z.object({ markdown: z.string() }));

/** Where a chat keeps the session of each agent, so that switching agents resumes neither in the other. */
export function sessionSlotOf(provider: Provider): Slot<string> {
  return provider === "codex-agent" ? codexSessionIdSlot : agentSessionIdSlot;
}
