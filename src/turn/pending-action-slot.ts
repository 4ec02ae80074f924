import * as z from "zod";
import { slot } from "../lib/slot.ts";

/** A tool call held back for the person's confirmation (see pending-actions.ts). */
const pendingActionSchema = z.object({
  id: z.string().regex(/^[a-z0-9]{12}$/),
  tool: z.string().max(64),
  argumentsText: z.string().max(200_000),
  summary: z.string().max(500),
  /** Who may confirm it besides an admin: the people the turn answered. */
  askers: z.array(z.number().int()).max(100),
  createdAt: z.number(),
  /** What the person was shown (the header and the whole details), for the pages' buttons. */
  view: z.object({ header: z.string().max(4000), detail: z.string().max(30_000) }).optional(),
  /** The SHA-256 (16 hex digits) of `argumentsText` as shown: the press runs the call only if it still matches. */
  argumentsHash: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  /** What outside content the asking turn held: the record of the answer carries it on. */
  source: z.string().max(500).optional(),
});
export type PendingAction = z.infer<typeof pendingActionSchema>;

/** Tool calls waiting for the person's confirmation, newest last. */
export const pendingActionsSlot = slot("pendingActions", z.array(pendingActionSchema).max(20));
