import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { PaidUnits } from "../config/paid-kinds.ts";

/**
 * Facts the bot remembers: a chat's (`about_user` null), or a person's (`about_user` is their Telegram user id).
 * `chat_id` is always where the fact was said; which turns may read a person's fact is decided in one place
 * (src/memory/visibility.ts): every query of a person's facts goes through it.
 */
export const memories = sqliteTable(
  "memories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    chatId: integer("chat_id").notNull(),
    content: text("content").notNull(),
    createdBy: integer("created_by"),
    createdAt: integer("created_at").notNull(),
    /** Provenance: what outside content the turn that wrote it had read (a fact it writes may carry instructions). */
    outside: text("outside"),
    /** The person the fact is about (a person's memory), or null for the chat's own memory. */
    aboutUser: integer("about_user"),
    /** Marked private: it stays in the chat it was said in, whatever that chat is. */
    private: integer("private", { mode: "boolean" }).notNull().default(false),
    /** When consolidation merged facts into this one: the ids and chats they came from (JSON), else null. */
    mergedFrom: text("merged_from"),
  },
  (table) => [
    index("memories_chat_id_idx").on(table.chatId, table.id),
    index("memories_about_user_idx").on(table.aboutUser, table.id),
  ],
);

/**
 * One row per model turn: who paid how many tokens for what. Summed by `GET /admin/usage` and `/status`. Chat
 * objects buffer rows and write them in batches; `source` (object and buffer row) makes a retried batch a no-op.
 */
export const usageRecords = sqliteTable(
  "usage_records",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    source: text("source").unique(),
    chatId: integer("chat_id").notNull(),
    kind: text("kind", { enum: ["chat", "task", "agent", "summary", "helper", "guest"] }).notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    toolCalls: integer("tool_calls").notNull(),
    durationMs: integer("duration_ms").notNull(),
    outcome: text("outcome", { enum: ["ok", "error"] }).notNull(),
    /** US dollars, from MODEL_PRICES (and the paid-call prices) when the turn ran; null when nothing had a price. */
    costUsd: real("cost_usd"),
    /** Paid calls besides tokens, by kind: images, searches, characters of speech, seconds of audio (JSON). */
    paidUnits: text("paid_units", { mode: "json" }).$type<PaidUnits>(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("usage_chat_created_idx").on(table.chatId, table.createdAt)],
);

/**
 * Scheduled work. A task belongs to `chat_id` (and its forum topic `thread_id`, if any); `created_by_chat` differs
 * only when an admin chat scheduled it for another chat. `next_run_at` is null once a one-shot task has run.
 */
export const tasks = sqliteTable(
  "tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    chatId: integer("chat_id").notNull(),
    threadId: integer("thread_id"),
    createdByChat: integer("created_by_chat").notNull(),
    createdByUser: integer("created_by_user"),
    prompt: text("prompt").notNull(),
    runAt: integer("run_at"),
    cron: text("cron"),
    timezone: text("timezone").notNull(),
    status: text("status", { enum: ["active", "paused", "done", "cancelled"] }).notNull(),
    nextRunAt: integer("next_run_at"),
    lastRunAt: integer("last_run_at"),
    lastOutcome: text("last_outcome", { enum: ["ok", "error"] }),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    index("tasks_chat_status_idx").on(table.chatId, table.status),
    index("tasks_due_idx").on(table.chatId, table.threadId, table.status, table.nextRunAt),
  ],
);

/** Every run of a task: when it was due, started and finished, and how it ended. */
export const taskRuns = sqliteTable(
  "task_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    taskId: integer("task_id").notNull(),
    chatId: integer("chat_id").notNull(),
    dueAt: integer("due_at").notNull(),
    startedAt: integer("started_at").notNull(),
    finishedAt: integer("finished_at"),
    outcome: text("outcome", { enum: ["running", "ok", "error"] }).notNull(),
    error: text("error"),
  },
  (table) => [index("task_runs_task_idx").on(table.taskId, table.id)],
);

/**
 * The chats that have talked to the bot, for the console's list: what each is called and when it last wrote. Chat
 * objects write a row when a chat first writes, when its name changes, and at most every few minutes after that.
 */
export const chats = sqliteTable(
  "chats",
  {
    chatId: integer("chat_id").primaryKey(),
    type: text("type", { enum: ["private", "group", "supergroup"] }).notNull(),
    title: text("title"),
    lastActivityAt: integer("last_activity_at").notNull(),
  },
  (table) => [index("chats_activity_idx").on(table.lastActivityAt)],
);

/**
 * Skills: Markdown instructions with a name and a description, for one chat (`chat_id`) or for the whole bot
 * (`chat_id` 0, which no Telegram chat has). D1 rather than the MEDIA bucket: a turn reads a chat's enabled skills in
 * one indexed query, names are unique per chat, the caps are sums, and MEDIA is optional.
 */
export const skills = sqliteTable(
  "skills",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    chatId: integer("chat_id").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    body: text("body").notNull(),
    always: integer("always", { mode: "boolean" }).notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [uniqueIndex("skills_chat_name_unique").on(table.chatId, table.name)],
);
