import * as z from "zod";
import { slot } from "../lib/slot.ts";

/** People whose facts a turn in this chat wrote since the chat last looked at consolidating them (user ids). */
export const memoryChangedSlot = slot("memoryChanged", z.array(z.number().int()).max(50));

/** When each person's memory was last consolidated from this chat, and how many facts they then had (by user id). */
export const memoryConsolidatedSlot = slot(
  "memoryConsolidatedBy",
  z.record(z.string(), z.object({ at: z.number(), facts: z.number().int() })),
);

/**
 * A private chat whose person had no facts here when last read: its turns skip the read (only this chat's turns
 * write facts a private chat shows; a write here clears it).
 */
export const personFactsNoneSlot = slot("personFactsNone", z.boolean());
