import * as z from "zod";
import { slot } from "../lib/slot.ts";
import { helperHoldSchema } from "./helper-job.ts";

/** A background helper this chat started that has not reported yet. */
const runningHelperSchema = z.object({
  /** Its object's id. */
  id: z.string(),
  number: z.number().int().positive(),
  label: z.string(),
  startedBy: z.number().int().optional(),
  startedAt: z.number(),
  /** When it must have ended (its time limit); long after that it counts as lost. */
  deadlineAt: z.number(),
  /** Its slice, held in the day's spend until it reports. */
  hold: helperHoldSchema,
  /** The "started" line in the chat, whose Stop button goes when it ends. */
  statusMessageId: z.number().int().optional(),
});
export type RunningHelper = z.infer<typeof runningHelperSchema>;

/** The background helpers running for this chat. */
export const helpersSlot = slot("helpers", z.array(runningHelperSchema));
/** How many helpers this chat has started: the next one's number is one more. */
export const helperCountSlot = slot("helperCount", z.number().int());
