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
/** When this chat was last written to the chat directory (D1), and under which name. */
export const directoryWrittenSlot = slot("directoryWritten", z.object({ at: z.number(), name: z.string() }));
