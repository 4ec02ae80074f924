import * as z from "zod";
import { paidUnitsSchema } from "../config/paid-kinds.ts";
import { chatDescriptionSchema, chatTargetSchema } from "../telegram/incoming-message.ts";

/** What a helper may spend: a share of what its chat had left when it started (undefined: that limit is not set). */
const helperSliceSchema = z.object({
  tokens: z.number().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
  /** Paid calls it may make, by kind; a kind not named is capped as one turn of the chat is. */
  units: paidUnitsSchema,
});
export type HelperSlice = z.infer<typeof helperSliceSchema>;

/** What a running helper holds of its chat's day: its slice, as if spent, until its report says what it used. */
export const helperHoldSchema = z.object({
  /** The chat's day (in its time zone) the hold was taken from. */
  day: z.string(),
  tokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  units: paidUnitsSchema,
});
export type HelperHold = z.infer<typeof helperHoldSchema>;

/** A helper's work, as the chat's object hands it to the helper's own object. */
export const helperJobSchema = z.object({
  /** The helper's object (its id as text). */
  id: z.string().min(1).max(100),
  /** What the chat calls it: #1, #2… */
  number: z.number().int().positive(),
  label: z.string().min(1).max(80),
  task: z.string().min(1).max(4000),
  chat: chatDescriptionSchema,
  /** Where its report goes: the chat's (or forum topic's) object. */
  target: chatTargetSchema,
  /** Who asked for it: they (or an admin) may stop it. */
  startedBy: z.number().int().optional(),
  isAdminUser: z.boolean(),
  /** The turn that started it had read content from outside the chat: the helper's turn has too. */
  untrustedSource: z.string().max(200).optional(),
  /** The turn that started it had read the chat's private data (its facts, its history): the helper's turn has too. */
  privateSource: z.string().max(200).optional(),
  startedAt: z.number(),
  timeLimitMs: z.number().int().positive(),
  slice: helperSliceSchema,
});
export type HelperJob = z.infer<typeof helperJobSchema>;

/** How a helper ended, what it reports, and what it cost (recorded in its chat's usage and day's spend). */
export const helperReportSchema = z.object({
  id: z.string().min(1).max(100),
  number: z.number().int().positive(),
  label: z.string().max(80),
  outcome: z.enum(["answered", "failed", "stopped", "timeout"]),
  text: z.string().max(100_000),
  /** What the helper read that nobody in the chat wrote (a web page, an MCP tool's result), if anything. */
  untrustedSource: z.string().max(200).optional(),
  usage: z.object({
    provider: z.string(),
    model: z.string(),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    toolCalls: z.number().int().nonnegative(),
    /** US dollars; null when nothing it used had a price. */
    costUsd: z.number().nonnegative().nullable(),
    paidUnits: paidUnitsSchema.optional(),
    durationMs: z.number().nonnegative(),
  }),
  finishedAt: z.number(),
});
export type HelperReport = z.infer<typeof helperReportSchema>;
