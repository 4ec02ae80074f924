import { and, asc, count, desc, eq, gt, inArray, lt, lte, sql } from "drizzle-orm";
import { type DrizzleSqliteDODatabase, drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../db/chat-migrations/migrations.js";
import * as schema from "../db/chat-schema.ts";
import type { UsageRecord } from "../db/usage.ts";
import { type HistoryMessage, historyMessageSchema } from "../protocol/messages.ts";
import type { TaskPayload } from "../tasks/task-runner.ts";
import type { ChatDescription, ChatTarget, IncomingMessage } from "../telegram/update.ts";
import type { DailySpend } from "../turn/budget.ts";
import type { HistorySummary, SummaryFailure } from "../turn/summary.ts";

/** What waits in the inbox: a message from an allowed chat, one from a stranger, or a due scheduled task. */
export type InboxEntry =
  | { kind: "message"; message: IncomingMessage }
  | { kind: "stranger"; message: IncomingMessage }
  | { kind: "task"; task: TaskPayload };

export type InboxItem = InboxEntry & { id: number; attempts: number };

/** The object's small named values, each with its type. */
export interface ChatMeta {
  /** Where answers go: the chat, and its forum topic. */
  target: ChatTarget;
  chat: ChatDescription;
  /** The claude-agent runner's session, resumed by the next claude-agent turn. */
  agentSessionId: string;
  /** The codex-agent runner's thread, resumed by the next codex-agent turn. */
  codexSessionId: string;
  /** When a stranger was last told this chat's id. */
  strangerNoticeAt: number;
  /** The earliest next run of this chat's (topic's) scheduled tasks. */
  nextTaskAt: number;
  /** When finished inbox rows were last pruned. */
  prunedAt: number;
  /** What the chat spent today, against its daily budget. */
  spend: DailySpend;
  /** Telegram refused a draft here once: answers stream as an edited message instead. */
  draftsRefused: boolean;
  /** The rolling summary of the conversation up to a history row (compaction). */
  summary: HistorySummary;
  /** The last summary attempt failed: when and why (it is tried again after the next turn). */
  summaryFailure: SummaryFailure;
  /** When this chat was last written to the chat directory (D1), and under which name. */
  directoryWritten: { at: number; name: string };
  /** This chat's pairing code while it waits for approval. */
  pairing: { code: string; expiresAt: number };
  /** Wrong setup codes tried this hour (`/pair <code>`). */
  setupAttempts: { since: number; count: number };
}

/** Rows older than this are pruned once finished; Telegram stops redelivering an update long before. */
const FINISHED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const WAITING = ["pending", "processing"] as const;

type Database = DrizzleSqliteDODatabase<typeof schema>;

/**
 * The hot statements, built once per object. drizzle's query building showed up in the benchmark's profile, so
 * the statements every message runs are prepared and only their parameters change.
 */
function prepare(db: Database) {
  const { inbox, history, meta, usageBuffer } = schema;
  const placeholder = sql.placeholder;
  return {
    enqueue: db
      .insert(inbox)
      .values({
        key: placeholder("key"),
        kind: placeholder("kind"),
        payload: placeholder("payload"),
        receivedAt: placeholder("now"),
      })
      .onConflictDoNothing()
      .returning({ id: inbox.id })
      .prepare(),
    firstWaiting: db
      .select({ id: inbox.id })
      .from(inbox)
      .where(inArray(inbox.status, [...WAITING]))
      .limit(1)
      .prepare(),
    // One statement marks the first waiting rows taken and returns them: atomic without a transaction, and it binds
    // one parameter however many rows it takes.
    takeWaiting: db
      .update(inbox)
      .set({ status: "processing", attempts: sql`${inbox.attempts} + 1` })
      .where(
        inArray(
          inbox.id,
          db
            .select({ id: inbox.id })
            .from(inbox)
            .where(inArray(inbox.status, [...WAITING]))
            .orderBy(asc(inbox.id))
            .limit(placeholder("limit")),
        ),
      )
      .returning()
      .prepare(),
    finishOne: db
      .update(inbox)
      .set({
        status: sql`${placeholder("status")}`,
        finishedAt: sql`${placeholder("now")}`,
        error: sql`${placeholder("error")}`,
      })
      .where(eq(inbox.id, placeholder("id")))
      .prepare(),
    lastHistory: db
      .select({ role: history.role, message: history.message })
      .from(history)
      .where(gt(history.id, placeholder("afterId")))
      .orderBy(desc(history.id))
      .limit(placeholder("limit"))
      .prepare(),
    historyCount: db.select({ count: count() }).from(history).prepare(),
    // Run after every drain by the compaction check.
    historyTotalsAfter: db
      .select({ count: count(), bytes: sql<number | null>`sum(length(cast(${history.message} as blob)))` })
      .from(history)
      .where(gt(history.id, placeholder("afterId")))
      .prepare(),
    appendHistory: db
      .insert(history)
      .values({ role: sql`${placeholder("role")}`, message: placeholder("message"), createdAt: placeholder("now") })
      .prepare(),
    pruneHistory: db
      .delete(history)
      .where(lte(history.id, sql`(select max(${history.id}) from ${history}) - ${placeholder("keep")}`))
      .prepare(),
    allMeta: db.select().from(meta).prepare(),
    bufferUsage: db
      .insert(usageBuffer)
      .values({ record: placeholder("record"), createdAt: placeholder("now") })
      .prepare(),
    oldestUsage: db
      .select({ createdAt: usageBuffer.createdAt })
      .from(usageBuffer)
      .orderBy(asc(usageBuffer.id))
      .limit(1)
      .prepare(),
  };
}

/** The chat object's SQLite: the inbox, the conversation and a few named values. All calls are synchronous. */
export class ChatStore {
  private readonly db: Database;
  private statements: ReturnType<typeof prepare> | undefined;
  /** `meta` is tiny and read on every turn: kept in memory, written through. */
  private metaCache: Map<string, string> | undefined;

  constructor(storage: DurableObjectStorage) {
    this.db = drizzle(storage, { schema });
  }

  async migrate(): Promise<void> {
    await migrate(this.db, migrations);
    this.statements = prepare(this.db);
  }

  private get prepared(): ReturnType<typeof prepare> {
    this.statements ??= prepare(this.db);
    return this.statements;
  }

  /** The new row's id, or undefined when the key was seen before: a redelivered update is a no-op. */
  enqueue(key: string, entry: InboxEntry, now: number): number | undefined {
    const payload = JSON.stringify(entry.kind === "task" ? entry.task : entry.message);
    const inserted = this.prepared.enqueue.all({ key, kind: entry.kind, payload, now });
    return inserted[0]?.id;
  }

  hasPending(): boolean {
    return this.prepared.firstWaiting.all().length > 0;
  }

  /**
   * Everything waiting, in arrival order, marked as being processed. Rows still marked `processing` belong to a run
   * that died (alarms never overlap within one object) and are taken again, with their attempt counted.
   */
  takePending(limit = 100): InboxItem[] {
    return this.prepared.takeWaiting
      .all({ limit })
      .sort((left, right) => left.id - right.id)
      .map((row) => inboxItemOf(row.id, row.kind, row.payload, row.attempts));
  }

  finish(ids: readonly number[], now: number, error?: string): void {
    const status = error === undefined ? "done" : "failed";
    for (const id of ids) this.prepared.finishOne.run({ id, status, now, error: error ?? null });
  }

  pruneFinished(now: number): void {
    this.db
      .delete(schema.inbox)
      .where(
        and(inArray(schema.inbox.status, ["done", "failed"]), lt(schema.inbox.receivedAt, now - FINISHED_RETENTION_MS)),
      )
      .run();
  }

  /**
   * The last `limit` messages, starting at a user message so that no tool result is separated from the assistant
   * message that called it (and so that the window opens the way every provider wants). When `limit` rows hold no
   * user message at all, it reaches further back, up to four times as far. Only rows after `afterId` (those a
   * summary does not cover) are taken.
   */
  historyWindow(limit: number, afterId = 0): HistoryMessage[] {
    for (const reach of [limit, limit * 4]) {
      const rows = this.prepared.lastHistory.all({ limit: reach, afterId }).reverse();
      const start = rows.findIndex((row) => row.role === "user");
      if (start >= 0) return rows.slice(start).flatMap((row) => parseHistoryRow(row.message));
      if (rows.length < reach) break;
    }
    return [];
  }

  appendHistory(messages: readonly HistoryMessage[], now: number): void {
    // One prepared row at a time: building a multi-row insert was a sixth of a plain turn's CPU, and inside the turn's
    // transaction the rows cost no commit each.
    for (const message of messages) {
      this.prepared.appendHistory.run({ role: message.role, message: JSON.stringify(message), now });
    }
  }

  /** Drops the oldest rows past the newest `keep`; a window still opens at a user message (see historyWindow). */
  pruneHistory(keep: number): void {
    this.prepared.pruneHistory.run({ keep });
  }

  /** How many rows are stored after `afterId`, and their size in UTF-8 bytes, without reading them. */
  historyTotalsAfter(afterId: number): { count: number; bytes: number } {
    const row = this.prepared.historyTotalsAfter.all({ afterId })[0];
    return { count: row?.count ?? 0, bytes: row?.bytes ?? 0 };
  }

  /**
   * The stored rows after `afterId` (the oldest `limit`, or all), oldest first, with their ids: what a summary does
   * not cover yet.
   */
  historyAfter(afterId: number, limit?: number): { id: number; message: HistoryMessage }[] {
    const query = this.db
      .select({ id: schema.history.id, message: schema.history.message })
      .from(schema.history)
      .where(gt(schema.history.id, afterId))
      .orderBy(asc(schema.history.id));
    return (limit === undefined ? query : query.limit(limit))
      .all()
      .flatMap((row) => parseHistoryRow(row.message).map((message) => ({ id: row.id, message })));
  }

  historyCount(): number {
    return this.prepared.historyCount.all()[0]?.count ?? 0;
  }

  clearHistory(): void {
    this.db.delete(schema.history).run();
  }

  /** Runs `work` atomically: the history write and the inbox update of one turn land together or not at all. */
  atomically<T>(work: () => T): T {
    try {
      return this.db.transaction(() => work());
    } catch (error) {
      // A rolled-back transaction may have changed cached meta values: read them afresh next time.
      this.metaCache = undefined;
      throw error;
    }
  }

  /** Keeps a finished turn's usage record until the object writes a batch of them to D1. */
  bufferUsage(record: UsageRecord, now: number): void {
    this.prepared.bufferUsage.run({ record: JSON.stringify(record), now });
  }

  oldestBufferedUsage(): number | undefined {
    return this.prepared.oldestUsage.all()[0]?.createdAt;
  }

  bufferedUsage(limit = 500): { id: number; record: UsageRecord }[] {
    return this.db
      .select()
      .from(schema.usageBuffer)
      .orderBy(asc(schema.usageBuffer.id))
      .limit(limit)
      .all()
      .map((row) => ({ id: row.id, record: JSON.parse(row.record) }));
  }

  /** Drops the buffered records up to `lastId`, once D1 has them. */
  dropBufferedUsage(lastId: number): void {
    this.db.delete(schema.usageBuffer).where(lte(schema.usageBuffer.id, lastId)).run();
  }

  getMeta<Key extends keyof ChatMeta>(key: Key): ChatMeta[Key] | undefined {
    const value = this.meta().get(key);
    return value === undefined ? undefined : JSON.parse(value);
  }

  setMeta<Key extends keyof ChatMeta>(key: Key, value: ChatMeta[Key]): void {
    const text = JSON.stringify(value);
    const cache = this.meta();
    if (cache.get(key) === text) return;
    this.db
      .insert(schema.meta)
      .values({ key, value: text })
      .onConflictDoUpdate({ target: schema.meta.key, set: { value: text } })
      .run();
    cache.set(key, text);
  }

  deleteMeta(key: keyof ChatMeta): void {
    const cache = this.meta();
    if (!cache.has(key)) return;
    this.db.delete(schema.meta).where(eq(schema.meta.key, key)).run();
    cache.delete(key);
  }

  private meta(): Map<string, string> {
    this.metaCache ??= new Map(this.prepared.allMeta.all().map((row) => [row.key, row.value]));
    return this.metaCache;
  }
}

/** A row's payload is what `enqueue` wrote for its kind. */
function inboxItemOf(id: number, kind: InboxEntry["kind"], payload: string, attempts: number): InboxItem {
  switch (kind) {
    case "message":
    case "stranger":
      return { id, attempts, kind, message: JSON.parse(payload) };
    case "task":
      return { id, attempts, kind, task: JSON.parse(payload) };
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
