import * as z from "zod";
import { isTimezone } from "../config/zones.ts";
import { describeTask, shorten } from "../tasks/describe-task.ts";
import { formatInZone, nextCronRun, parseAt, ScheduleError } from "../tasks/schedule-time.ts";
import type { Task, TaskAction, TaskOwner } from "../tasks/task-repository.ts";
import { crossChatRefusal, type ToolContext } from "./context.ts";
import { defineTool, ToolError } from "./registry.ts";

const MAX_TASK_PROMPT_LENGTH = 2000;
const MAX_TASKS_PER_CHAT = 50;

const prompt = z
  .string()
  .trim()
  .min(1)
  .max(MAX_TASK_PROMPT_LENGTH)
  .describe("What to do when the task runs, as an instruction.");
const at = z
  .string()
  .max(64)
  .describe("One-shot: an ISO-8601 time, e.g. 2026-05-01T09:00:00+02:00 (without an offset: in `timezone`).");
const cron = z.string().max(100).describe('Recurring: a cron expression, e.g. "0 9 * * 1-5" for weekdays at 9:00.');
const timezone = z.string().max(64).describe("IANA time zone for `cron` and offset-less `at`, e.g. Europe/Berlin.");
const taskId = z.number().int().positive().describe("The task's id, as list_tasks shows it.");

export const scheduleTask = defineTool({
  name: "schedule_task",
  description:
    "Schedule a task: a prompt you will run later as a turn in this chat, its answer posted here. Give exactly one of " +
    "`at` (one-shot) or `cron` (recurring, at most every 5 minutes). Use for reminders, briefings and recurring checks.",
  schema: z.object({
    prompt,
    at: at.optional(),
    cron: cron.optional(),
    timezone: timezone.optional(),
    chatId: z
      .number()
      .int()
      .optional()
      .describe("Admins in admin chats only: another allowed chat to schedule the task in."),
  }),
  actsBeyondTheAnswer(args, context) {
    const target = targetChat(args.chatId, context);
    const zone = checkTimezone(args.timezone ?? context.timezone);
    const schedule = scheduleOf(args.at, args.cron, zone, context.now());
    const when = schedule.cron === null ? `at ${formatInZone(schedule.nextRunAt, zone)}` : `every \`${schedule.cron}\``;
    const where = target.chatId === context.chatId ? "" : ` in chat ${target.chatId}`;
    return `schedule “${shorten(args.prompt)}” ${when} (${zone})${where}`;
  },
  async handler(args, context) {
    const target = targetChat(args.chatId, context);
    const zone = checkTimezone(args.timezone ?? context.timezone);
    const schedule = scheduleOf(args.at, args.cron, zone, context.now());
    if ((await context.tasks.countLive(target.chatId)) >= MAX_TASKS_PER_CHAT) {
      throw new ToolError(`That chat already has ${MAX_TASKS_PER_CHAT} tasks; cancel some first.`);
    }
    const now = context.now();
    const row = await context.tasks.create({
      chatId: target.chatId,
      threadId: target.threadId ?? null,
      createdByChat: context.chatId,
      createdByUser: context.userId ?? null,
      prompt: args.prompt,
      runAt: schedule.runAt,
      cron: schedule.cron,
      timezone: zone,
      status: "active",
      nextRunAt: schedule.nextRunAt,
      createdAt: now,
      updatedAt: now,
    });
    await context.tasksChanged(target.chatId, target.threadId);
    return { content: `Scheduled task #${row.id}: ${describeTask(row)}.` };
  },
});

export const listTasks = defineTool({
  name: "list_tasks",
  description: "List this chat's scheduled tasks (and, in an admin chat, those it scheduled for other chats).",
  schema: z.object({ chatId: z.number().int().optional().describe("Only this chat's id is accepted.") }),
  async handler({ chatId }, context) {
    if (chatId !== undefined && chatId !== context.chatId) {
      throw new ToolError("You can only list this chat's own tasks.");
    }
    const rows = await context.tasks.liveOwnedBy(ownerOf(context));
    // Another person's task (or one another chat planted) is their words, which can be instructions: marked.
    if (rows.some((task) => task.createdByUser !== context.userId || task.createdByChat !== context.chatId)) {
      context.trust.markUntrusted("the prompts of scheduled tasks someone else set");
    }
    return {
      content: rows.length
        ? rows.map((task) => `#${task.id} ${describeTask(task)} — ${task.prompt}`).join("\n")
        : "No scheduled tasks.",
    };
  },
});

export const updateTask = defineTool({
  name: "update_task",
  description:
    "Change a task's prompt, time (`at`), cron expression or time zone. Giving `at` or `cron` replaces its schedule.",
  schema: z.object({
    taskId,
    prompt: prompt.optional(),
    at: at.optional(),
    cron: cron.optional(),
    timezone: timezone.optional(),
  }),
  actsBeyondTheAnswer: (args) => `change scheduled task #${args.taskId}`,
  async handler(args, context) {
    const task = await ownTask(args.taskId, context, ["active", "paused"]);
    const zone = checkTimezone(args.timezone ?? task.timezone);
    const now = context.now();
    const rescheduled = args.at !== undefined || args.cron !== undefined || args.timezone !== undefined;
    const schedule = rescheduled
      ? args.at !== undefined || args.cron !== undefined
        ? scheduleOf(args.at, args.cron, zone, now)
        : scheduleOf(
            task.cron === null ? new Date(task.runAt!).toISOString() : undefined,
            task.cron ?? undefined,
            zone,
            now,
          )
      : undefined;
    const row = await context.tasks.update(
      task.id,
      {
        ...(args.prompt !== undefined ? { prompt: args.prompt } : {}),
        ...(schedule
          ? {
              runAt: schedule.runAt,
              cron: schedule.cron,
              nextRunAt: task.status === "active" ? schedule.nextRunAt : null,
            }
          : {}),
        timezone: zone,
      },
      now,
    );
    await context.tasksChanged(task.chatId, task.threadId ?? undefined);
    return { content: `Updated task #${task.id}: ${describeTask(row)}.` };
  },
});

export const pauseTask = defineTool({
  name: "pause_task",
  description: "Pause a task; it does not run until resumed.",
  schema: z.object({ taskId }),
  actsBeyondTheAnswer: (args) => `pause scheduled task #${args.taskId}`,
  handler: async (args, context) => ({ content: `Paused task #${(await changed(args.taskId, "pause", context)).id}.` }),
});

export const resumeTask = defineTool({
  name: "resume_task",
  description: "Resume a paused task from its next scheduled time.",
  schema: z.object({ taskId }),
  actsBeyondTheAnswer: (args) => `resume scheduled task #${args.taskId}`,
  async handler(args, context) {
    const task = await changed(args.taskId, "resume", context);
    return { content: `Resumed task #${task.id}: ${describeTask(task)}.` };
  },
});

export const cancelTask = defineTool({
  name: "cancel_task",
  description: "Cancel a task for good.",
  schema: z.object({ taskId }),
  actsBeyondTheAnswer: (args) => `cancel scheduled task #${args.taskId}`,
  handler: async (args, context) => ({
    content: `Cancelled task #${(await changed(args.taskId, "cancel", context)).id}.`,
  }),
});

/** Pauses, resumes or cancels one of the chat's tasks (the same change as the admin API's), and re-arms its alarm. */
async function changed(taskId: number, action: TaskAction, context: ToolContext): Promise<Task> {
  await ownTask(taskId, context, ["active", "paused"]);
  const result = await context.tasks.change({ owner: ownerOf(context), taskId, action, now: context.now() });
  switch (result.kind) {
    case "not_found":
      throw new ToolError(`No task #${taskId} in this chat.`);
    case "refused":
      throw new ToolError(result.reason);
    case "changed":
      await context.tasksChanged(result.task.chatId, result.task.threadId ?? undefined);
      return result.task;
  }
}

/** This chat, or (an admin, in an admin chat, in a turn that read nothing untrusted) another allowed chat. */
function targetChat(chatId: number | undefined, context: ToolContext): { chatId: number; threadId?: number } {
  if (chatId === undefined || chatId === context.chatId) {
    return { chatId: context.chatId, ...(context.threadId !== undefined ? { threadId: context.threadId } : {}) };
  }
  const refusal = crossChatRefusal(context);
  if (refusal !== undefined) throw new ToolError(refusal);
  if (!context.isChatAllowed(chatId)) throw new ToolError(`Chat ${chatId} is not one of the bot's allowed chats.`);
  return { chatId };
}

/** This chat's tasks, and, while it is an admin chat, the ones it scheduled for other chats. */
function ownerOf(context: ToolContext): TaskOwner {
  return { chatId: context.chatId, withCreated: context.isAdminChat };
}

/** A task of this chat (or created by it) in one of `states`; any other id is "not found", whoever owns it. */
async function ownTask(id: number, context: ToolContext, states: Task["status"][]): Promise<Task> {
  const task = await context.tasks.ownedTask(ownerOf(context), id);
  if (!task) throw new ToolError(`No task #${id} in this chat.`);
  if (task.chatId !== context.chatId) {
    // Changing a task this admin chat scheduled elsewhere is acting on that chat.
    const refusal = crossChatRefusal(context);
    if (refusal !== undefined) throw new ToolError(refusal);
  }
  if (!states.includes(task.status)) throw new ToolError(`Task #${id} is ${task.status}.`);
  return task;
}

function checkTimezone(zone: string): string {
  if (!isTimezone(zone)) throw new ToolError(`"${zone}" is not an IANA time zone such as Europe/Berlin.`);
  return zone;
}

function scheduleOfOrThrow(
  atText: string | undefined,
  cronText: string | undefined,
  zone: string,
  now: number,
): { runAt: number | null; cron: string | null; nextRunAt: number } {
  if ((atText === undefined) === (cronText === undefined)) {
    throw new ToolError("Give exactly one of `at` (one-shot) or `cron` (recurring).");
  }
  if (atText !== undefined) {
    const runAt = parseAt(atText, zone);
    if (runAt <= now) throw new ToolError(`${atText} is in the past (it is now ${new Date(now).toISOString()}).`);
    return { runAt, cron: null, nextRunAt: runAt };
  }
  const expression = cronText!.trim();
  return { runAt: null, cron: expression, nextRunAt: nextCronRun(expression, zone, now) };
}

/** A schedule, or the reason it cannot be one as the model's error (a time in words, a cron expression). */
function scheduleOf(...args: Parameters<typeof scheduleOfOrThrow>): ReturnType<typeof scheduleOfOrThrow> {
  try {
    return scheduleOfOrThrow(...args);
  } catch (error) {
    if (error instanceof ScheduleError) throw new ToolError(error.message);
    throw error;
  }
}
