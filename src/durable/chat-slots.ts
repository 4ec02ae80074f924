import * as z from "zod";
import { slot } from "../lib/slot.ts";
import { chatDescriptionSchema, chatTargetSchema } from "../telegram/incoming-message.ts";

/** Where answers go: the chat, and its forum topic. */
export const targetSlot = slot("target", chatTargetSchema);
/** What kind of chat it is, and its title. */
export const chatSlot = slot("chat", chatDescriptionSchema);
/** The earliest next run of this chat's (topic's) scheduled tasks. */
export const nextTaskAtSlot = slot("nextTaskAt", z.number());
/** When finished inbox rows were last pruned. */
export const prunedAtSlot = slot("prunedAt", z.number());
/**
 * When this chat last wrote to the chat directory (D1), and under which name; `due` while that row waits for the
 * object's next D1 flush (it goes with the usage records: see D1Flush).
 */
export const directoryWrittenSlot = slot(
  "directoryWritten",
  z.object({ at: z.number(), name: z.string(), due: z.literal(true).optional() }),
);
