import { and, eq, gte, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { usageRecords } from "./d1-schema.ts";

export type UsageRecord = typeof usageRecords.$inferInsert;

export async function recordUsage(db: DrizzleD1Database, record: UsageRecord): Promise<void> {
  await db.insert(usageRecords).values(record);
}

export interface UsageSum {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
}

const sums = {
  turns: sql<number>`count(*)`.mapWith(Number),
  inputTokens: sql<number>`coalesce(sum(${usageRecords.inputTokens}), 0)`.mapWith(Number),
  outputTokens: sql<number>`coalesce(sum(${usageRecords.outputTokens}), 0)`.mapWith(Number),
  toolCalls: sql<number>`coalesce(sum(${usageRecords.toolCalls}), 0)`.mapWith(Number),
};

/** One chat's totals since `since` (ms), and overall. */
export async function chatUsage(db: DrizzleD1Database, chatId: number, since: number): Promise<{ today: UsageSum; total: UsageSum }> {
  const [today, total] = await Promise.all([
    db.select(sums).from(usageRecords).where(and(eq(usageRecords.chatId, chatId), gte(usageRecords.createdAt, since))),
    db.select(sums).from(usageRecords).where(eq(usageRecords.chatId, chatId)),
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
