import * as z from "zod";
import { slot } from "../lib/slot.ts";

/** A question the model asked with buttons (ask_user), waiting for a tap (see questions.ts). */
const openQuestionSchema = z.object({
  id: z.string().regex(/^[a-z0-9]{10}$/),
  question: z.string().max(300),
  choices: z.array(z.string().max(40)).min(2).max(8),
  /** Who may answer besides an admin: the people the turn answered. */
  askers: z.array(z.number().int()).max(100),
  /** The message with the buttons. */
  messageId: z.number().int(),
  askedAt: z.number(),
  expiresAt: z.number(),
});
export type OpenQuestion = z.infer<typeof openQuestionSchema>;

/** Questions with buttons waiting for a tap, oldest first. */
export const questionsSlot = slot("questions", z.array(openQuestionSchema).max(20));
