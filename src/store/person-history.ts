import { sql } from "drizzle-orm";
import * as z from "zod";
import { historyMessageSchema } from "../protocol/messages.ts";
import type { ChatDatabase } from "./chat-database.ts";
import type { HistorySearchStore } from "./history-search.ts";

/** One message a person wrote in their private chat, as an export gives it: its text and the keys of its files. */
export interface WrittenRow {
  id: number;
  createdAt: number;
  content: string;
  files: string[];
}

const rowSchema = z.object({ id: z.number().int(), createdAt: z.number(), message: z.string() });

/**
 * What a private chat's object holds of its person, for the admin API's export and erase: the messages they wrote
 * (live and archived) with their files' keys, and a way to delete the chat's whole archive. A private chat is one
 * person's, so every user row in it is theirs.
 */
export class PersonHistory {
  constructor(
    private readonly database: ChatDatabase,
    private readonly search: HistorySearchStore,
  ) {}

  written(): WrittenRow[] {
    const rows = this.database.db.all(sql`
      SELECT id, created_at AS createdAt, message FROM history WHERE role = 'user'
      UNION ALL SELECT id, created_at AS createdAt, message FROM history_archive WHERE role = 'user'
      ORDER BY id`);
    return rows.flatMap((row) => {
      const parsed = rowSchema.safeParse(row);
      if (!parsed.success) return [];
      const message = readMessage(parsed.data.message);
      if (message?.role !== "user") return [];
      const files = (message.attachments ?? []).flatMap((attachment) =>
        attachment.key === undefined ? [] : [attachment.key],
      );
      return [{ id: parsed.data.id, createdAt: parsed.data.createdAt, content: message.content, files }];
    });
  }

  /**
   * Deletes the archive (where `history.clear()` has just moved the live rows) and every entry of the search index
   * (the summary is compaction's: its caller deletes it). Returns how many rows were deleted. Run inside the caller's
   * transaction, after `history.clear()`.
   */
  eraseArchived(): number {
    const archived = this.database.db.all<{ id: number }>(sql`DELETE FROM history_archive RETURNING id`);
    this.search.clear();
    return archived.length;
  }
}

function readMessage(text: string) {
  try {
    const parsed = historyMessageSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
