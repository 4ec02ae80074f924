import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The chat object's own SQLite. `inbox` is the durable queue between the webhook and the alarm: one row per update
 * (or due task), its `key` unique so a redelivered update is a no-op.
 */
export const inbox = sqliteTable(
  "inbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    key: text("key").notNull().unique(),
    kind: text("kind", { enum: ["message", "stranger", "task", "helper", "guest"] }).notNull(),
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "processing", "done", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    receivedAt: integer("received_at").notNull(),
    finishedAt: integer("finished_at"),
    error: text("error"),
  },
  (table) => [index("inbox_status_idx").on(table.status, table.id)],
);

/** The conversation, provider-neutral: one `HistoryMessage` (JSON) per row, in order. */
export const history = sqliteTable("history", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  role: text("role", { enum: ["user", "assistant", "tool"] }).notNull(),
  message: text("message").notNull(),
  createdAt: integer("created_at").notNull(),
});

/**
 * History past HISTORY_MAX_STORED, moved here (same ids) rather than deleted, so that search_history reaches back to
 * the first message; rows older than the chat's retention are deleted. The model's window never reads it.
 */
export const historyArchive = sqliteTable(
  "history_archive",
  {
    id: integer("id").primaryKey(),
    role: text("role", { enum: ["user", "assistant", "tool"] }).notNull(),
    message: text("message").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("history_archive_created_idx").on(table.createdAt)],
);

/** Small named values: the chat's description, the agent session id, when a stranger was last told its id. */
export const meta = sqliteTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** Usage records of finished turns, waiting to be written to D1 in one batch (see ChatSession.flushUsage). */
export const usageBuffer = sqliteTable("usage_buffer", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  record: text("record").notNull(),
  createdAt: integer("created_at").notNull(),
});

/**
 * Messages Telegram could not take when they were sent (it was down, or asked to wait): kept, in order, and retried
 * on the object's alarm until Telegram takes them or they pass OUTBOX_MAX_HOURS (see src/reply/outbox.ts). `payload`
 * is what is left to do (JSON, read back through zod); `uncertain` counts the sends of its next step whose fate is
 * unknown (a timeout, a dropped connection), so that a step is never sent more than twice; `hold_until` is Telegram's
 * `retry_after`, which even a try brought forward by a new message waits for.
 */
export const outbox = sqliteTable("outbox", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  kind: text("kind", { enum: ["answer", "notice", "report"] }).notNull(),
  payload: text("payload").notNull(),
  createdAt: integer("created_at").notNull(),
  attempts: integer("attempts").notNull().default(0),
  nextTryAt: integer("next_try_at").notNull(),
  holdUntil: integer("hold_until"),
  uncertain: integer("uncertain").notNull().default(0),
  lastError: text("last_error"),
});
