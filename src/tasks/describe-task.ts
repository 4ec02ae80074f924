import { formatInZone } from "./schedule-time.ts";
import type { Task } from "./task-repository.ts";

/** A task's schedule and next run, as tools, /tasks and confirmations say it. */
export function describeTask(task: Task): string {
  const when = task.cron !== null ? `every \`${task.cron}\` (${task.timezone})` : `once`;
  const next =
    task.status === "paused"
      ? "paused"
      : task.nextRunAt !== null
        ? `next ${formatInZone(task.nextRunAt, task.timezone)} (${task.timezone})`
        : "done";
  return `${when}, ${next}`;
}

/** A prompt cut to a line. */
export function shorten(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
