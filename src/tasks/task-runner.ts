import { includes } from "../config/settings.ts";
import { runTurn } from "../turn/run-turn.ts";
import type { TurnServices } from "../turn/turn-services.ts";
import { scheduledTaskMessage } from "../turn/user-message.ts";
import { nextCronRun } from "./schedule-time.ts";
import { advanceTask, cancelTask, dueTasks, finishTaskRun, startTaskRun, type Task, taskById } from "./task-store.ts";

export interface TaskPayload {
  taskId: number;
  prompt: string;
  dueAt: number;
  userId?: number;
}

/**
 * Moves every due task of this chat into the inbox, then on to its next time. The inbox key (task id and due time)
 * makes a retry after a crash between the two steps a no-op. A recurring task's next time is computed from now, so
 * after downtime it runs once, not once per missed time.
 */
export async function enqueueDueTasks(services: TurnServices): Promise<void> {
  const now = services.now();
  for (const task of await dueTasks(services.db, services.target.chatId, services.target.threadId, now)) {
    const payload: TaskPayload = {
      taskId: task.id,
      prompt: task.prompt,
      dueAt: task.nextRunAt!,
      ...(task.createdByUser !== null ? { userId: task.createdByUser } : {}),
    };
    services.store.enqueue(`task:${task.id}:${task.nextRunAt}`, { kind: "task", task: payload }, now);
    let next: number | null = null;
    if (task.cron !== null) {
      try {
        next = nextCronRun(task.cron, task.timezone, now);
      } catch (error) {
        console.warn(`task ${task.id}: no next run (${error instanceof Error ? error.message : error})`);
      }
    }
    await advanceTask(services.db, task, next, now);
  }
}

/**
 * Runs one due task as a turn whose prompt is marked as a scheduled task; each run is recorded. The task is read
 * again first: one cancelled or paused since it was queued does not run, an updated prompt is used, and a chat no
 * longer allowed (in ALLOWED_CHAT_IDS or approved by pairing) gets no model call.
 */
export async function runTask(services: TurnServices, inboxId: number, task: TaskPayload): Promise<void> {
  const current = await taskById(services.db, task.taskId);
  if (!current || current.status === "cancelled" || current.status === "paused") {
    services.store.finish([inboxId], services.now(), `task ${task.taskId} is ${current?.status ?? "gone"}; not run`);
    return;
  }
  if (!services.isChatAllowed(services.chat.id)) {
    services.store.finish([inboxId], services.now(), "the chat is no longer allowed; not run");
    return;
  }
  if (current.createdByChat !== current.chatId && !creatorIsStillAdmin(services, current)) {
    // An admin's power over other chats ends with their admin status, and so do the tasks they planted there.
    await cancelTask(services.db, current.id, services.now());
    services.store.finish([inboxId], services.now(), "its creator is no longer an admin; cancelled, not run");
    return;
  }
  const stored = await services.configs.get(services.chat.id);
  if (stored.state === "valid" && stored.config.enabled === false) {
    services.store.finish([inboxId], services.now(), "the bot is disabled in this chat; not run");
    return;
  }
  const runId = await startTaskRun(services.db, task.taskId, services.chat.id, task.dueAt, services.now());
  const outcome = await runTurn(services, {
    kind: "task",
    users: [scheduledTaskMessage(task.taskId, current.prompt)],
    inboxIds: [inboxId],
    ...(task.userId !== undefined ? { userId: task.userId } : {}),
    failureNote: `Scheduled task #${task.taskId} failed.`,
  });
  const error =
    outcome.ok === false ? `${outcome.error.classification}: ${outcome.error.message}`.slice(0, 500) : undefined;
  await finishTaskRun(services.db, runId, task.taskId, outcome.ok === false ? "error" : "ok", error, services.now());
}

/** A task scheduled from another chat runs only while its creator is an admin user in an admin chat. */
function creatorIsStillAdmin(services: TurnServices, task: Task): boolean {
  return (
    task.createdByUser !== null &&
    services.isAdminUser(task.createdByUser) &&
    includes(services.settings.adminChatIds, task.createdByChat)
  );
}
