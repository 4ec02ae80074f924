import { and, asc, eq, inArray } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { tasks } from "../db/d1-schema.ts";
import { assertNever } from "../lib/errors.ts";
import { nextCronRun } from "./schedule-time.ts";
import type { Task } from "./task-store.ts";

export type TaskAction = "pause" | "resume" | "cancel";

/** What an admin action did: the task as it is now, or why nothing changed. */
export type TaskActionResult =
  | { kind: "changed"; task: Task }
  | { kind: "not_found" }
  | { kind: "refused"; reason: string };

/** A chat's live tasks (active and paused), soonest first, for the admin API. */
export async function liveTasksOf(db: DrizzleD1Database, chatId: number): Promise<Task[]> {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.chatId, chatId), inArray(tasks.status, ["active", "paused"])))
    .orderBy(asc(tasks.nextRunAt), asc(tasks.id));
}

/**
 * Pause, resume or cancel one of a chat's tasks, as the task tools do for a chat's own model: a paused task has no
 * next run; a resumed one continues from its next time after now (a one-shot task whose time passed cannot resume).
 */
export async function changeTask(
  db: DrizzleD1Database,
  { chatId, taskId, action, now }: { chatId: number; taskId: number; action: TaskAction; now: number },
): Promise<TaskActionResult> {
  const [task] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, taskId), eq(tasks.chatId, chatId)));
  if (!task) return { kind: "not_found" };
  let change: Partial<Task>;
  switch (action) {
    case "pause":
      if (task.status !== "active") return { kind: "refused", reason: `Task #${taskId} is ${task.status}.` };
      change = { status: "paused", nextRunAt: null };
      break;
    case "resume": {
      if (task.status !== "paused") return { kind: "refused", reason: `Task #${taskId} is ${task.status}.` };
      const nextRunAt = task.cron !== null ? nextCronRun(task.cron, task.timezone, now) : task.runAt;
      if (nextRunAt === null || nextRunAt <= now) {
        return { kind: "refused", reason: `Task #${taskId}'s time has passed; it cannot resume.` };
      }
      change = { status: "active", nextRunAt };
      break;
    }
    case "cancel":
      if (task.status !== "active" && task.status !== "paused") {
        return { kind: "refused", reason: `Task #${taskId} is ${task.status}.` };
      }
      change = { status: "cancelled", nextRunAt: null };
      break;
    default:
      return assertNever(action, "task action");
  }
  const [row] = await db
    .update(tasks)
    .set({ ...change, updatedAt: now })
    .where(eq(tasks.id, taskId))
    .returning();
  return { kind: "changed", task: row! };
}
