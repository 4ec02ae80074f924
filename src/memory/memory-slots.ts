import * as z from "zod";
import { slot } from "../lib/slot.ts";

/**
 * A private chat's person: when their memory was last consolidated and how many facts it then held, and when it was
 * last checked (at most hourly: the check reads D1).
 */
export const memoryConsolidatedSlot = slot(
  "memoryConsolidated",
  z.object({ at: z.number(), facts: z.number().int(), checkedAt: z.number().optional() }),
);
