import * as z from "zod";
import { slot } from "../lib/slot.ts";

/** This chat's pairing code while it waits for approval. */
export const pairingSlot = slot("pairing", z.object({ code: z.string(), expiresAt: z.number() }));
/** Wrong setup codes tried this hour (`/pair <code>`). */
export const setupAttemptsSlot = slot("setupAttempts", z.object({ since: z.number(), count: z.number().int() }));
/** When a stranger was last told this chat's id. */
export const strangerNoticeAtSlot = slot("strangerNoticeAt", z.number());
