import * as z from "zod";
import { paidUnitsSchema } from "../config/paid-kinds.ts";
import { slot } from "../lib/slot.ts";

/** What a chat has spent on one calendar day (in its time zone). */
const dailySpendSchema = z.object({
  /** YYYY-MM-DD in the chat's time zone. */
  day: z.string(),
  tokens: z.number(),
  costUsd: z.number(),
  /** The chat was told today that its budget is used up. */
  noticeSent: z.boolean(),
  /** Paid calls besides tokens, by kind (their cost is in `costUsd`). */
  units: paidUnitsSchema.optional(),
});
export type DailySpend = z.infer<typeof dailySpendSchema>;

/** What the chat spent today, against its daily budget. */
export const spendSlot = slot("spend", dailySpendSchema);
