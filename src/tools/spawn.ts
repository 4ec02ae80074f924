import * as z from "zod";
import { defineTool, ToolError } from "./registry.ts";

export const spawn = defineTool({
  name: "spawn",
  description:
    "Start a background helper for work that takes a while (research, comparing options, reading several pages). " +
    "It works on its own, with tools that only read (it cannot send messages, schedule, change memory or start " +
    "helpers), while the conversation goes on, and its report is posted in this chat when it is done. It does not " +
    "see this conversation: give it a complete task. After starting one, tell the user it is running; do not wait " +
    "for it or do its work yourself.",
  schema: z.object({
    task: z
      .string()
      .trim()
      .min(1)
      .max(4000)
      .describe("What to do and what to report, self-contained (the helper does not see this conversation)."),
    label: z.string().trim().min(1).max(60).optional().describe("A short name for it, shown in the chat."),
    timeLimitSeconds: z
      .number()
      .int()
      .min(1)
      .max(780)
      .optional()
      .describe("Stop it after this long (default and most: the bot's limit for helpers)."),
  }),
  available: (settings) => settings.helpers.maxRunning > 0,
  sendsOut: ({ task }) => ({ kind: "helper", task }),
  async handler({ task, label, timeLimitSeconds }, context) {
    if (!context.helpers) throw new ToolError("A background helper cannot be started from here.");
    const result = await context.helpers.spawn({ task, label, timeLimitSeconds });
    if (!result.started) throw new ToolError(`No helper was started: ${result.reason}.`);
    return { content: result.text };
  },
});
