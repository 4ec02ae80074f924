import { describeTask, shorten } from "./describe-task.ts";
import type { TaskRepository } from "./task-repository.ts";

/** The text of /tasks: a chat's live tasks with their next run. */
export async function listTasksText(tasks: TaskRepository, chatId: number): Promise<string> {
  const rows = await tasks.liveOf(chatId);
  if (rows.length === 0) return "No scheduled tasks. Ask me to remind you of something, or to do something every day.";
  return [
    "**Scheduled tasks**",
    ...rows.map((task) => `#${task.id} ${describeTask(task)}\n   ${shorten(task.prompt)}`),
  ].join("\n");
}
