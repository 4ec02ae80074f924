import type { DrizzleD1Database } from "drizzle-orm/d1";
import { type DirectoryEntry, directoryUpsert } from "../db/chat-directory.ts";
import { writeBatch } from "../db/database.ts";
import { usageInserts } from "../db/usage.ts";
import { errorText } from "../lib/errors.ts";
import type { UsageBuffer } from "../store/usage-buffer.ts";

/** After a failed write, not before this long again. */
const RETRY_MS = 60 * 1000;

/** The chat's directory row that waits for the flush (src/durable/chat-directory-entry.ts). */
export interface DueDirectoryRow {
  due(): DirectoryEntry | undefined;
  written(row: DirectoryEntry): void;
}

/**
 * What a chat object owes D1, written in one batch once the oldest of it has waited `flushMs` (0: after every alarm):
 * its buffered usage records and its row in the chat directory. A D1 write per turn cost more than the rest of a turn
 * under load, and a new chat's directory row a write of its own in its first turn; a batch costs one round trip. A
 * failed write keeps everything for the next try. Each usage record carries its source (object and buffer row), so a
 * batch written twice counts once; the directory row is an upsert.
 */
export class D1Flush {
  private retryAt = 0;

  constructor(
    private readonly buffer: UsageBuffer,
    private readonly options: {
      source: string;
      flushMs: () => number;
      db: () => DrizzleD1Database;
      directory: DueDirectoryRow;
    },
  ) {}

  /** When what is buffered is due to be written, if anything is. */
  nextFlushAt(): number | undefined {
    return this.dueAt(this.buffer.oldestAt(), this.options.directory.due());
  }

  async flushIfDue(now: number): Promise<void> {
    const oldest = this.buffer.oldestAt();
    const row = this.options.directory.due();
    const due = this.dueAt(oldest, row);
    if (due === undefined || now < due) return;
    const { records, lastId } = oldest === undefined ? { records: [], lastId: undefined } : this.buffer.batch();
    const db = this.options.db();
    const usage = records.map((record) => ({ ...record.record, source: `${this.options.source}:${record.id}` }));
    try {
      await writeBatch(db, [...usageInserts(db, usage), ...(row ? [directoryUpsert(db, row)] : [])]);
      if (lastId !== undefined) this.buffer.drop(lastId);
      if (row) this.options.directory.written(row);
    } catch (error) {
      this.retryAt = now + RETRY_MS;
      console.warn("writing usage and the chat directory to D1 failed; will retry", errorText(error));
    }
  }

  private dueAt(oldestUsage: number | undefined, row: DirectoryEntry | undefined): number | undefined {
    const oldest = [oldestUsage, row?.lastActivityAt].filter((at): at is number => at !== undefined);
    if (oldest.length === 0) return undefined;
    return Math.max(Math.min(...oldest) + this.options.flushMs(), this.retryAt);
  }
}
