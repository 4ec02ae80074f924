import { and, asc, eq, inArray } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { tasks } from "../db/d1-schema.ts";
import { describeTask, shorten } from "../tools/task-tools.ts";

/** The text of /tasks: a chat's live tasks with their next run. */
export async function listTasksText(db: DrizzleD1Database, chatId: number): Promise<string> {
  const rows = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.chatId, chatId), inArray(tasks.status, ["active", "paused"])))
    .orderBy(asc(tasks.nextRunAt), asc(tasks.id));
  if (rows.length === 0) return "No scheduled tasks. Ask me to remind you of something, or to do something every day.";
  return [
    "**Scheduled tasks**",
    ...rows.map((task) => `#${task.id} ${describeTask(task)}\n   ${shorten(task.prompt)}`),
  ].join("\n");
}
