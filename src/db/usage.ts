import { and, eq, gte, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import * as z from "zod";
import { paidUnitsSchema } from "../config/paid-kinds.ts";
import { usageRecords } from "./d1-schema.ts";

/** One turn's (or summary pass's) usage, as a chat object buffers it and D1 keeps it. */
export const usageRecordSchema = z.object({
  chatId: z.number().int(),
  kind: z.enum(["chat", "task", "agent", "summary", "helper", "guest"]),
  provider: z.string(),
  model: z.string(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  toolCalls: z.number().int(),
  durationMs: z.number(),
  outcome: z.enum(["ok", "error"]),
  /** US dollars, from MODEL_PRICES (and the paid-call prices) when the turn ran; null when nothing had a price. */
  costUsd: z.number().nullable().optional(),
  paidUnits: paidUnitsSchema.optional(),
  createdAt: z.number(),
});
export type UsageRecord = z.infer<typeof usageRecordSchema>;

/** D1 binds at most 100 parameters per statement: at most 14 columns, so 7 rows per insert. */
const ROWS_PER_INSERT = 7;

/**
 * The statements that write buffered usage records, for one D1 batch. Each record carries its `source` (the chat
 * object and its buffer row); a row already written by an earlier, interrupted flush is skipped, so a retry never
 * counts a turn twice.
 */
export function usageInserts(db: DrizzleD1Database, records: (UsageRecord & { source: string })[]) {
  const statements = [];
  for (let start = 0; start < records.length; start += ROWS_PER_INSERT) {
    statements.push(
      db
        .insert(usageRecords)
        .values(records.slice(start, start + ROWS_PER_INSERT))
        .onConflictDoNothing(),
    );
  }
  return statements;
}

interface UsageSum {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  /** US dollars, for the turns whose model had a price. */
  costUsd: number;
}

const sums = {
  turns: sql<number>`count(*)`.mapWith(Number),
  inputTokens: sql<number>`coalesce(sum(${usageRecords.inputTokens}), 0)`.mapWith(Number),
  outputTokens: sql<number>`coalesce(sum(${usageRecords.outputTokens}), 0)`.mapWith(Number),
  toolCalls: sql<number>`coalesce(sum(${usageRecords.toolCalls}), 0)`.mapWith(Number),
  costUsd: sql<number>`coalesce(sum(${usageRecords.costUsd}), 0)`.mapWith(Number),
};

/** A chat's sums for /status: with what its platform cost is estimated from (see budget/platform-cost.ts). */
export interface ChatUsageSum extends UsageSum {
  summaries: number;
  durationMs: number;
}

const chatSums = {
  ...sums,
  summaries: sql<number>`coalesce(sum(case when ${usageRecords.kind} = 'summary' then 1 else 0 end), 0)`.mapWith(
    Number,
  ),
  durationMs: sql<number>`coalesce(sum(${usageRecords.durationMs}), 0)`.mapWith(Number),
};

/** One chat's totals since `since` (ms), and overall. */
export async function chatUsage(
  db: DrizzleD1Database,
  chatId: number,
  since: number,
): Promise<{ today: ChatUsageSum; total: ChatUsageSum }> {
  const [today, total] = await Promise.all([
    db
      .select(chatSums)
      .from(usageRecords)
      .where(and(eq(usageRecords.chatId, chatId), gte(usageRecords.createdAt, since))),
    db.select(chatSums).from(usageRecords).where(eq(usageRecords.chatId, chatId)),
  ]);
  return { today: today[0]!, total: total[0]! };
}

/** Sums per chat and per model (optionally for one chat), for `GET /admin/usage`. */
export async function usageReport(db: DrizzleD1Database, chatId: number | undefined) {
  const scope = chatId === undefined ? undefined : eq(usageRecords.chatId, chatId);
  const [perChat, perModel] = await Promise.all([
    db
      .select({ chatId: usageRecords.chatId, ...sums })
      .from(usageRecords)
      .where(scope)
      .groupBy(usageRecords.chatId)
      .orderBy(usageRecords.chatId),
    db
      .select({ provider: usageRecords.provider, model: usageRecords.model, ...sums })
      .from(usageRecords)
      .where(scope)
      .groupBy(usageRecords.provider, usageRecords.model)
      .orderBy(usageRecords.provider, usageRecords.model),
  ]);
  return { perChat, perModel };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Sums per UTC day and model over the last `days` days (optionally for one chat), oldest first, for the console's
 * chart and `GET /admin/usage/daily`.
 */
export async function dailyUsage(
  db: DrizzleD1Database,
  { chatId, days, now }: { chatId: number | undefined; days: number; now: number },
) {
  const since = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const day = sql<string>`strftime('%Y-%m-%d', ${usageRecords.createdAt} / 1000, 'unixepoch')`;
  const inWindow = gte(usageRecords.createdAt, since);
  const rows = await db
    .select({ day, provider: usageRecords.provider, model: usageRecords.model, ...sums })
    .from(usageRecords)
    .where(chatId === undefined ? inWindow : and(eq(usageRecords.chatId, chatId), inWindow))
    .groupBy(day, usageRecords.provider, usageRecords.model)
    .orderBy(day, usageRecords.provider, usageRecords.model);
  return { since: new Date(since).toISOString().slice(0, 10), days: rows };
}
