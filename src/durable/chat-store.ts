import { and, asc, desc, eq, inArray, lt, sql } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { historyMessageSchema, type HistoryMessage } from "../adapters/messages.ts";
import * as schema from "../db/chat-schema.ts";
import migrations from "../db/chat-migrations/migrations.js";

export type InboxKind = (typeof schema.inbox.$inferSelect)["kind"];

export interface InboxItem {
  id: number;
  kind: InboxKind;
  payload: unknown;
  attempts: number;
}

/** Rows older than this are pruned once finished; Telegram stops redelivering an update long before. */
const FINISHED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** The chat object's SQLite: the inbox, the conversation and a few named values. All calls are synchronous. */
export class ChatStore {
  private readonly db: DrizzleSqliteDODatabase<typeof schema>;

  constructor(storage: DurableObjectStorage) {
    this.db = drizzle(storage, { schema });
  }

  async migrate(): Promise<void> {
    await migrate(this.db, migrations);
  }

  /** The new row's id, or undefined when the key was seen before: a redelivered update is a no-op. */
  enqueue(key: string, kind: InboxKind, payload: unknown, now: number): number | undefined {
    const inserted = this.db
      .insert(schema.inbox)
      .values({ key, kind, payload: JSON.stringify(payload), receivedAt: now })
      .onConflictDoNothing()
      .returning({ id: schema.inbox.id })
      .all();
    return inserted[0]?.id;
  }

  hasPending(): boolean {
    return (
      this.db
        .select({ id: schema.inbox.id })
        .from(schema.inbox)
        .where(inArray(schema.inbox.status, ["pending", "processing"]))
        .limit(1)
        .all().length > 0
    );
  }

  /**
   * Everything waiting, in arrival order, marked as being processed. Rows still marked `processing` belong to a run
   * that died (alarms never overlap within one object) and are taken again, with their attempt counted.
   */
  takePending(limit = 100): InboxItem[] {
    return this.db.transaction((transaction) => {
      const rows = transaction
        .select()
        .from(schema.inbox)
        .where(inArray(schema.inbox.status, ["pending", "processing"]))
        .orderBy(asc(schema.inbox.id))
        .limit(limit)
        .all();
      if (rows.length === 0) return [];
      transaction
        .update(schema.inbox)
        .set({ status: "processing", attempts: sql`${schema.inbox.attempts} + 1` })
        .where(inArray(schema.inbox.id, rows.map((row) => row.id)))
        .run();
      return rows.map((row) => ({ id: row.id, kind: row.kind, payload: JSON.parse(row.payload), attempts: row.attempts + 1 }));
    });
  }

  finish(ids: readonly number[], now: number, error?: string): void {
    if (ids.length === 0) return;
    this.db
      .update(schema.inbox)
      .set({ status: error === undefined ? "done" : "failed", finishedAt: now, error: error ?? null })
      .where(inArray(schema.inbox.id, [...ids]))
      .run();
  }

  pruneFinished(now: number): void {
    this.db
      .delete(schema.inbox)
      .where(and(inArray(schema.inbox.status, ["done", "failed"]), lt(schema.inbox.receivedAt, now - FINISHED_RETENTION_MS)))
      .run();
  }

  /**
   * The last `limit` messages, starting at a user message so that no tool result is separated from the assistant
   * message that called it (and so that the window opens the way every provider wants). When `limit` rows hold no
   * user message at all, it reaches further back, up to four times as far.
   */
  historyWindow(limit: number): HistoryMessage[] {
    for (const reach of [limit, limit * 4]) {
      const rows = this.db
        .select({ id: schema.history.id, role: schema.history.role, message: schema.history.message })
        .from(schema.history)
        .orderBy(desc(schema.history.id))
        .limit(reach)
        .all()
        .reverse();
      const start = rows.findIndex((row) => row.role === "user");
      if (start >= 0) return rows.slice(start).flatMap((row) => parseHistoryRow(row.message));
      if (rows.length < reach) break;
    }
    return [];
  }

  appendHistory(messages: readonly HistoryMessage[], now: number): void {
    if (messages.length === 0) return;
    // SQLite in a Durable Object binds at most 100 parameters per statement: 3 per row.
    for (let start = 0; start < messages.length; start += 30) {
      this.db
        .insert(schema.history)
        .values(
          messages.slice(start, start + 30).map((message) => ({ role: message.role, message: JSON.stringify(message), createdAt: now })),
        )
        .run();
    }
  }

  historyCount(): number {
    const [row] = this.db.select({ count: sql<number>`count(*)` }).from(schema.history).all();
    return row?.count ?? 0;
  }

  clearHistory(): void {
    this.db.delete(schema.history).run();
  }

  /** Runs `work` atomically: the history write and the inbox update of one turn land together or not at all. */
  atomically<T>(work: () => T): T {
    return this.db.transaction(() => work());
  }

  getMeta(key: string): unknown {
    const [row] = this.db.select().from(schema.meta).where(eq(schema.meta.key, key)).all();
    return row ? JSON.parse(row.value) : undefined;
  }

  setMeta(key: string, value: unknown): void {
    const text = JSON.stringify(value);
    this.db.insert(schema.meta).values({ key, value: text }).onConflictDoUpdate({ target: schema.meta.key, set: { value: text } }).run();
  }

  deleteMeta(key: string): void {
    this.db.delete(schema.meta).where(eq(schema.meta.key, key)).run();
  }
}

function parseHistoryRow(text: string): HistoryMessage[] {
  try {
    const parsed = historyMessageSchema.safeParse(JSON.parse(text));
    return parsed.success ? [parsed.data] : [];
  } catch {
    return [];
  }
}
