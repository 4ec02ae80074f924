import * as z from "zod";
import { slot } from "../lib/slot.ts";

/** The rolling summary of a chat's conversation: provider-neutral text covering every history row up to `throughId`. */
const historySummarySchema = z.object({
  text: z.string(),
  /** The last history row the summary covers; the window the model sees starts after it. */
  throughId: z.number().int(),
  /** How many messages it covers, all passes together. */
  messages: z.number().int(),
  updatedAt: z.number(),
  /** Provenance: what content from outside the chat the summarised messages held (it stays with the summary). */
  outside: z.string().max(200).optional(),
});
export type HistorySummary = z.infer<typeof historySummarySchema>;

/** The rolling summary of the conversation up to a history row (compaction). */
export const summarySlot = slot("summary", historySummarySchema);
/** The last summary attempt failed: when and why (it is tried again after the next turn). */
export const summaryFailureSlot = slot("summaryFailure", z.object({ at: z.number(), reason: z.string() }));
/** The last history row the vector index has (search_history's hybrid ranking, when HISTORY_VECTORS is bound). */
export const embeddedThroughIdSlot = slot("embeddedThroughId", z.number().int());
