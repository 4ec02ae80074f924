import * as z from "zod";

/** A due scheduled task, as it waits in the inbox. */
export const taskPayloadSchema = z.object({
  taskId: z.number().int(),
  prompt: z.string(),
  dueAt: z.number(),
  userId: z.number().int().optional(),
});
export type TaskPayload = z.infer<typeof taskPayloadSchema>;
