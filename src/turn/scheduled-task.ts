import { errorText } from "../lib/errors.ts";
import { nextCronRun } from "../tasks/schedule-time.ts";
import type { TaskPayload } from "../tasks/task-payload.ts";
import { type Task, TaskRepository } from "../tasks/task-repository.ts";
import type { ChatContext } from "./chat-context.ts";
import { runTurn } from "./run-turn.ts";
import { scheduledTaskMessage } from "./user-message.ts";

/**
 * Moves every due task of this chat into the inbox, then on to its next time. The inbox key (task id and due time)
 * makes a retry after a crash between the two steps a no-op. A recurring task's next time is computed from now, so
 * after downtime it runs once, not once per missed time.
 */
export async function enqueueDueTasks(ctx: ChatContext): Promise<void> {
  const now = ctx.now();
  const tasks = new TaskRepository(ctx.db);
  for (const task of await tasks.due(ctx.target.chatId, ctx.target.threadId, now)) {
    const payload: TaskPayload = {
      taskId: task.id,
      prompt: task.prompt,
      dueAt: task.nextRunAt!,
      ...(task.createdByUser !== null ? { userId: task.createdByUser } : {}),
    };
    ctx.stores.inbox.enqueue(`task:${task.id}:${task.nextRunAt}`, { kind: "task", task: payload }, now);
    let next: number | null = null;
    if (task.cron !== null) {
      try {
        next = nextCronRun(task.cron, task.timezone, now);
      } catch (error) {
        console.warn(`task ${task.id}: no next run (${errorText(error)})`);
      }
    }
    await tasks.advance(task.id, next, now);
  }
}

/**
 * Runs one due task as a turn whose prompt is marked as a scheduled task; each run is recorded. The task is read
 * again first: one cancelled or paused since it was queued does not run, an updated prompt is used, and a chat no
 * longer allowed (in ALLOWED_CHAT_IDS or approved by pairing) gets no model call.
 */
export async function runTask(ctx: ChatContext, inboxId: number, task: TaskPayload): Promise<void> {
  const tasks = new TaskRepository(ctx.db);
  const current = await tasks.byId(task.taskId);
  if (!current || current.status === "cancelled" || current.status === "paused") {
    ctx.stores.inbox.finish([inboxId], ctx.now(), `task ${task.taskId} is ${current?.status ?? "gone"}; not run`);
    return;
  }
  if (!ctx.access.isChatAllowed(ctx.chat.id)) {
    ctx.stores.inbox.finish([inboxId], ctx.now(), "the chat is no longer allowed; not run");
    return;
  }
  if (current.createdByChat !== current.chatId && !creatorIsStillAdmin(ctx, current)) {
    // An admin's power over other chats ends with their admin status, and so do the tasks they planted there.
    await tasks.cancel(current.id, ctx.now());
    ctx.stores.inbox.finish([inboxId], ctx.now(), "its creator is no longer an admin; cancelled, not run");
    return;
  }
  const stored = await ctx.configs.get(ctx.chat.id);
  if (stored.state === "valid" && stored.config.enabled === false) {
    ctx.stores.inbox.finish([inboxId], ctx.now(), "the bot is disabled in this chat; not run");
    return;
  }
  const runId = await tasks.startRun({ taskId: task.taskId, chatId: ctx.chat.id, dueAt: task.dueAt, now: ctx.now() });
  const outcome = await runTurn(ctx, {
    kind: "task",
    input: { kind: "ready", users: [scheduledTaskMessage(task.taskId, current.prompt)] },
    inboxIds: [inboxId],
    senders: task.userId === undefined ? [] : [task.userId],
    failureNote: `Scheduled task #${task.taskId} failed.`,
  });
  const error =
    outcome.ok === false ? `${outcome.error.classification}: ${outcome.error.message}`.slice(0, 500) : undefined;
  await tasks.finishRun({
    runId,
    taskId: task.taskId,
    outcome: outcome.ok === false ? "error" : "ok",
    error,
    now: ctx.now(),
  });
}

/** A task scheduled from another chat runs only while its creator is an admin user in an admin chat. */
function creatorIsStillAdmin(ctx: ChatContext, task: Task): boolean {
  return (
    task.createdByUser !== null && ctx.access.isAdmin(task.createdByUser) && ctx.access.isAdminChat(task.createdByChat)
  );
}
