import * as z from "zod";

/**
 * Calls that cost money besides a model's tokens, each counted in its own unit: generated images (images), web
 * searches (queries), spoken answers (characters of text) and transcriptions (seconds of audio).
 */
export const PAID_KINDS = ["image", "search", "speech", "transcription"] as const;
export type PaidKind = (typeof PAID_KINDS)[number];

/** Units of each paid kind: what a day's spend keeps, and what a usage record carries. */
export const paidUnitsSchema = z.partialRecord(z.enum(PAID_KINDS), z.number().nonnegative());
export type PaidUnits = z.infer<typeof paidUnitsSchema>;

/** How many units of a kind a chat may use per turn and per calendar day (undefined: no cap). */
export interface PaidCap {
  perTurn?: number;
  perDay?: number;
}
