import { and, asc, count, eq, inArray, isNull, lte, min, or } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { taskRuns, tasks } from "../db/d1-schema.ts";
import { assertNever } from "../lib/errors.ts";
import { nextCronRun, ScheduleError } from "./schedule-time.ts";

export type Task = typeof tasks.$inferSelect;
export type NewTask = Omit<typeof tasks.$inferInsert, "id">;
export type TaskAction = "pause" | "resume" | "cancel";

/** What a pause, resume or cancel did: the task as it is now, or why nothing changed. */
export type TaskActionResult =
  | { kind: "changed"; task: Task }
  | { kind: "not_found" }
  | { kind: "refused"; reason: string };

/** Whose tasks a query sees: a chat's own, and (an admin chat's) those it scheduled for other chats. */
export interface TaskOwner {
  chatId: number;
  /** Also the tasks this chat created in other chats. */
  withCreated: boolean;
}

const LIVE = ["active", "paused"] as const;

/**
 * Every read and write of scheduled tasks and their runs in D1: the task tools, the admin API and console, /tasks and
 * the chat's object (due tasks, their runs) all go through here, so a task changes in one place.
 */
export class TaskRepository {
  private readonly db: DrizzleD1Database;

  constructor(db: DrizzleD1Database) {
    this.db = db;
  }

  /** How many live tasks a chat has (the per-chat cap). */
  async countLive(chatId: number): Promise<number> {
    const [row] = await this.db
      .select({ live: count() })
      .from(tasks)
      .where(and(eq(tasks.chatId, chatId), inArray(tasks.status, LIVE)));
    return row?.live ?? 0;
  }

  async create(task: NewTask): Promise<Task> {
    const [row] = await this.db.insert(tasks).values(task).returning();
    return row!;
  }

  /** A chat's live tasks, soonest first (the admin API, the console, /tasks). */
  liveOf(chatId: number): Promise<Task[]> {
    return this.db
      .select()
      .from(tasks)
      .where(and(eq(tasks.chatId, chatId), inArray(tasks.status, LIVE)))
      .orderBy(asc(tasks.nextRunAt), asc(tasks.id));
  }

  /** The live tasks an owner sees, by id (list_tasks). */
  liveOwnedBy(owner: TaskOwner): Promise<Task[]> {
    return this.db
      .select()
      .from(tasks)
      .where(and(ownedBy(owner), inArray(tasks.status, LIVE)))
      .orderBy(asc(tasks.id));
  }

  /** One task the owner sees; undefined for any other id, whoever has it. */
  async ownedTask(owner: TaskOwner, taskId: number): Promise<Task | undefined> {
    const [task] = await this.db
      .select()
      .from(tasks)
      .where(and(eq(tasks.id, taskId), ownedBy(owner)));
    return task;
  }

  async byId(taskId: number): Promise<Task | undefined> {
    const [task] = await this.db.select().from(tasks).where(eq(tasks.id, taskId));
    return task;
  }

  /** Changes a task's prompt, schedule or zone (update_task). */
  async update(
    taskId: number,
    change: Partial<Pick<Task, "prompt" | "runAt" | "cron" | "nextRunAt" | "timezone">>,
    now: number,
  ): Promise<Task> {
    const [row] = await this.db
      .update(tasks)
      .set({ ...change, updatedAt: now })
      .where(eq(tasks.id, taskId))
      .returning();
    return row!;
  }

  /**
   * Pause, resume or cancel one of a chat's tasks: a paused task has no next run; a resumed one continues from its
   * next time after now (a one-shot task whose time passed cannot resume). The tools, the admin API and the console.
   */
  async change(input: {
    owner: TaskOwner;
    taskId: number;
    action: TaskAction;
    now: number;
  }): Promise<TaskActionResult> {
    const { owner, taskId, action, now } = input;
    const task = await this.ownedTask(owner, taskId);
    if (!task) return { kind: "not_found" };
    const refused = (reason: string): TaskActionResult => ({ kind: "refused", reason });
    let change: Partial<Task>;
    switch (action) {
      case "pause":
        if (task.status !== "active") return refused(`Task #${taskId} is ${task.status}.`);
        change = { status: "paused", nextRunAt: null };
        break;
      case "resume": {
        if (task.status !== "paused") return refused(`Task #${taskId} is ${task.status}.`);
        let nextRunAt: number | null;
        try {
          nextRunAt = task.cron !== null ? nextCronRun(task.cron, task.timezone, now) : task.runAt;
        } catch (error) {
          if (error instanceof ScheduleError) return refused(error.message);
          throw error;
        }
        if (nextRunAt === null || nextRunAt <= now) {
          return refused(`Task #${taskId}'s time has passed; give it a new time first.`);
        }
        change = { status: "active", nextRunAt };
        break;
      }
      case "cancel":
        if (task.status !== "active" && task.status !== "paused") return refused(`Task #${taskId} is ${task.status}.`);
        change = { status: "cancelled", nextRunAt: null };
        break;
      default:
        return assertNever(action, "task action");
    }
    const [row] = await this.db
      .update(tasks)
      .set({ ...change, updatedAt: now })
      .where(eq(tasks.id, taskId))
      .returning();
    return { kind: "changed", task: row! };
  }

  /** The earliest next run among a chat topic's active tasks, or undefined. */
  async nextDueAt(chatId: number, threadId: number | undefined): Promise<number | undefined> {
    const [row] = await this.db
      .select({ next: min(tasks.nextRunAt) })
      .from(tasks)
      .where(and(eq(tasks.chatId, chatId), topicIs(threadId), eq(tasks.status, "active")));
    return row?.next ?? undefined;
  }

  due(chatId: number, threadId: number | undefined, now: number): Promise<Task[]> {
    return this.db
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
  async advance(taskId: number, nextRunAt: number | null, now: number): Promise<void> {
    await this.db
      .update(tasks)
      .set({ nextRunAt, lastRunAt: now, updatedAt: now, ...(nextRunAt === null ? { status: "done" as const } : {}) })
      .where(eq(tasks.id, taskId));
  }

  /** Cancels a task whatever its state (a task whose creator is no longer an admin). */
  async cancel(taskId: number, now: number): Promise<void> {
    await this.db
      .update(tasks)
      .set({ status: "cancelled", nextRunAt: null, updatedAt: now })
      .where(eq(tasks.id, taskId));
  }

  async startRun(run: { taskId: number; chatId: number; dueAt: number; now: number }): Promise<number> {
    const [row] = await this.db
      .insert(taskRuns)
      .values({ taskId: run.taskId, chatId: run.chatId, dueAt: run.dueAt, startedAt: run.now, outcome: "running" })
      .returning({ id: taskRuns.id });
    return row!.id;
  }

  async finishRun(run: {
    runId: number;
    taskId: number;
    outcome: "ok" | "error";
    error: string | undefined;
    now: number;
  }): Promise<void> {
    await this.db.batch([
      this.db
        .update(taskRuns)
        .set({ finishedAt: run.now, outcome: run.outcome, error: run.error ?? null })
        .where(eq(taskRuns.id, run.runId)),
      this.db.update(tasks).set({ lastOutcome: run.outcome, updatedAt: run.now }).where(eq(tasks.id, run.taskId)),
    ]);
  }
}

function topicIs(threadId: number | undefined) {
  return threadId === undefined ? isNull(tasks.threadId) : eq(tasks.threadId, threadId);
}

function ownedBy(owner: TaskOwner) {
  return owner.withCreated
    ? or(eq(tasks.chatId, owner.chatId), eq(tasks.createdByChat, owner.chatId))
    : eq(tasks.chatId, owner.chatId);
}
