import { type HelperReport, helperReportSchema } from "../helpers/helper-job.ts";
import type { InboxCodec, InboxItem as StoredItem } from "../store/inbox-store.ts";
import { type TaskPayload, taskPayloadSchema } from "../tasks/task-payload.ts";
import {
  type GuestQuery,
  guestQuerySchema,
  type IncomingMessage,
  incomingMessageSchema,
} from "../telegram/incoming-message.ts";

/**
 * What waits in a chat's inbox: a message from an allowed chat, one from a stranger, a due scheduled task, a background
 * helper's report (delivered in order with the rest), or a guest query its person made in another chat.
 */
export type InboxEntry =
  | { kind: "message"; message: IncomingMessage }
  | { kind: "stranger"; message: IncomingMessage }
  | { kind: "task"; task: TaskPayload }
  | { kind: "helper"; report: HelperReport }
  | { kind: "guest"; query: GuestQuery };

/** A taken row of the inbox: its entry, or why it cannot be read. */
export type InboxItem = StoredItem<InboxEntry>;

/** How each kind is stored (its payload alone) and read back through its schema. */
export const inboxCodec: InboxCodec<InboxEntry> = {
  payloadOf(entry) {
    switch (entry.kind) {
      case "task":
        return entry.task;
      case "guest":
        return entry.query;
      case "helper":
        return entry.report;
      case "message":
      case "stranger":
        return entry.message;
    }
  },
  entryOf(kind, json) {
    switch (kind) {
      case "message":
      case "stranger": {
        const message = incomingMessageSchema.safeParse(json);
        return message.success
          ? { kind, message: message.data }
          : { kind: "unreadable", problem: "its message does not match the current schema" };
      }
      case "task": {
        const task = taskPayloadSchema.safeParse(json);
        return task.success
          ? { kind, task: task.data }
          : { kind: "unreadable", problem: "its task does not match the current schema" };
      }
      case "helper": {
        const report = helperReportSchema.safeParse(json);
        return report.success
          ? { kind, report: report.data }
          : { kind: "unreadable", problem: "its helper report does not match the current schema" };
      }
      case "guest": {
        const query = guestQuerySchema.safeParse(json);
        return query.success
          ? { kind, query: query.data }
          : { kind: "unreadable", problem: "its guest query does not match the current schema" };
      }
    }
  },
};
