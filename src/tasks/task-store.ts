import { and, asc, eq, isNull, lte, min } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { taskRuns, tasks } from "../db/d1-schema.ts";

export type Task = typeof tasks.$inferSelect;

function topicIs(threadId: number | undefined) {
  return threadId === undefined ? isNull(tasks.threadId) : eq(tasks.threadId, threadId);
}

/** The earliest next run among a chat topic's active tasks, or undefined. */
export async function nextDueAt(
  db: DrizzleD1Database,
  chatId: number,
  threadId: number | undefined,
): Promise<number | undefined> {
  const [row] = await db
    .select({ next: min(tasks.nextRunAt) })
    .from(tasks)
    .where(and(eq(tasks.chatId, chatId), topicIs(threadId), eq(tasks.status, "active")));
  return row?.next ?? undefined;
}

export async function dueTasks(
  db: DrizzleD1Database,
  chatId: number,
  threadId: number | undefined,
  now: number,
): Promise<Task[]> {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.chatId, chatId), topicIs(threadId), eq(tasks.status, "active"), lte(tasks.nextRunAt, now)))
    .orderBy(asc(tasks.nextRunAt))
    .limit(20);
}

/**
 * Moves a due task on before it runs: a recurring task to its next time after now (so a task missed several times
 * while the object was down runs once, not once per missed time), a one-shot task to no next time at all.
 */
export async function advanceTask(
  db: DrizzleD1Database,
  task: Task,
  nextRunAt: number | null,
  now: number,
): Promise<void> {
  await db
    .update(tasks)
    .set({ nextRunAt, lastRunAt: now, updatedAt: now, ...(nextRunAt === null ? { status: "done" as const } : {}) })
    .where(eq(tasks.id, task.id));
}

export async function cancelTask(db: DrizzleD1Database, taskId: number, now: number): Promise<void> {
  await db.update(tasks).set({ status: "cancelled", nextRunAt: null, updatedAt: now }).where(eq(tasks.id, taskId));
}

export async function taskById(db: DrizzleD1Database, taskId: number): Promise<Task | undefined> {
  const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
  return task;
}

export async function startTaskRun(
  db: DrizzleD1Database,
  taskId: number,
  chatId: number,
  dueAt: number,
  now: number,
): Promise<number> {
  const [run] = await db
    .insert(taskRuns)
    .values({ taskId, chatId, dueAt, startedAt: now, outcome: "running" })
    .returning({ id: taskRuns.id });
  return run!.id;
}

export async function finishTaskRun(
  db: DrizzleD1Database,
  runId: number,
  taskId: number,
  outcome: "ok" | "error",
  error: string | undefined,
  now: number,
): Promise<void> {
  await db.batch([
    db
      .update(taskRuns)
      .set({ finishedAt: now, outcome, error: error ?? null })
      .where(eq(taskRuns.id, runId)),
    db.update(tasks).set({ lastOutcome: outcome, updatedAt: now }).where(eq(tasks.id, taskId)),
  ]);
}
