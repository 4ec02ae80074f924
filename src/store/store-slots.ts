import * as z from "zod";
import { slot } from "../lib/slot.ts";

/**
 * The last history row (live or archived) the full-text index has: rows after it are indexed when the index is next
 * read (see HistorySearchStore), not as they are written.
 */
export const searchIndexedThroughIdSlot = slot("searchIndexedThroughId", z.number().int().nonnegative());
