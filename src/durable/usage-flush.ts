import type { DrizzleD1Database } from "drizzle-orm/d1";
import { writeUsage } from "../db/usage.ts";
import { errorText } from "../lib/errors.ts";
import type { UsageBuffer } from "../store/usage-buffer.ts";

/** After a failed write, not before this long again. */
const RETRY_MS = 60 * 1000;

/**
 * Writes a chat object's buffered usage records to D1 in one batch, once the oldest has waited `flushMs` (0: after
 * every alarm). A D1 write per turn cost more than the rest of a turn under load; a batch costs one round trip. A
 * failed write keeps the records for the next try. Each record carries its source (object and buffer row), so a
 * batch written twice counts once.
 */
export class UsageFlush {
  private retryAt = 0;

  constructor(
    private readonly buffer: UsageBuffer,
    private readonly options: { source: string; flushMs: () => number; db: () => DrizzleD1Database },
  ) {}

  /** When the buffered records are due to be written, if any are buffered. */
  nextFlushAt(): number | undefined {
    const oldest = this.buffer.oldestAt();
    return oldest === undefined ? undefined : Math.max(oldest + this.options.flushMs(), this.retryAt);
  }

  async flushIfDue(now: number): Promise<void> {
    const due = this.nextFlushAt();
    if (due === undefined || now < due) return;
    const { records, lastId } = this.buffer.batch();
    if (lastId === undefined) return;
    try {
      await writeUsage(
        this.options.db(),
        records.map((row) => ({ ...row.record, source: `${this.options.source}:${row.id}` })),
      );
      this.buffer.drop(lastId);
    } catch (error) {
      this.retryAt = now + RETRY_MS;
      console.warn("writing usage to D1 failed; will retry", errorText(error));
    }
  }
}
