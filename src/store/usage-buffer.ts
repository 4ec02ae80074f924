import { asc, lte, sql } from "drizzle-orm";
import * as schema from "../db/chat-schema.ts";
import { type UsageRecord, usageRecordSchema } from "../db/usage.ts";
import type { ChatDatabase } from "./chat-database.ts";
import { orderedLimit, preparedOnce } from "./statements.ts";

/** Usage records of finished turns, kept until the object writes a batch of them to D1 (see `D1Flush`). */
export class UsageBuffer {
  private readonly statements;
  /**
   * When the oldest buffered record was made (`null`: none is; `undefined`: not known, read it). Asked at every alarm
   * and turn; only this buffer writes the table, so the answer is kept until a write changes it.
   */
  private oldest: number | null | undefined;
  /**
   * The last batch, when it held every buffered row: its last row id, and when the first record added since was made.
   * Dropping that batch then leaves exactly the records added since, so the oldest is known without a read.
   */
  private wholeBatch: { lastId: number | undefined; firstAddedAt: number | undefined } | undefined;

  constructor(private readonly database: ChatDatabase) {
    database.onRollback(() => {
      this.oldest = undefined;
      this.wholeBatch = undefined;
    });
    const { db } = database;
    const { usageBuffer } = schema;
    const placeholder = sql.placeholder;
    this.statements = {
      add: preparedOnce(() =>
        db
          .insert(usageBuffer)
          .values({ record: placeholder("record"), createdAt: placeholder("now") })
          .prepare(),
      ),
      oldest: preparedOnce(() =>
        db
          .select({ createdAt: usageBuffer.createdAt })
          .from(usageBuffer)
          .orderBy(orderedLimit(asc(usageBuffer.id), 1))
          .prepare(),
      ),
    };
  }

  add(record: UsageRecord, now: number): void {
    this.statements.add().run({ record: JSON.stringify(record), now });
    // Into an empty buffer this is the oldest.
    if (this.oldest === null) this.oldest = now;
    if (this.wholeBatch) this.wholeBatch.firstAddedAt ??= now;
  }

  /** The object's database was just created: nothing is buffered, and the first question needs no read. */
  knownEmpty(): void {
    this.oldest = null;
  }

  oldestAt(): number | undefined {
    if (this.oldest === undefined) this.oldest = this.statements.oldest().all()[0]?.createdAt ?? null;
    return this.oldest ?? undefined;
  }

  /**
   * The oldest `limit` rows: their readable records (each with its row id) and the last row id read. A row no schema
   * reads any more is left out of `records` but inside `lastId`, so dropping the batch drops it too.
   */
  batch(limit = 500): { records: { id: number; record: UsageRecord }[]; lastId: number | undefined } {
    const { usageBuffer } = schema;
    const rows = this.database.db
      .select()
      .from(usageBuffer)
      .orderBy(orderedLimit(asc(usageBuffer.id), limit))
      .all();
    this.oldest = rows[0]?.createdAt ?? null;
    this.wholeBatch = rows.length < limit ? { lastId: rows.at(-1)?.id, firstAddedAt: undefined } : undefined;
    const records = rows.flatMap((row) => {
      const record = parseRecord(row.record);
      if (record === undefined) console.warn(`usage buffer row ${row.id} is unreadable; it is dropped`);
      return record === undefined ? [] : [{ id: row.id, record }];
    });
    return { records, lastId: rows.at(-1)?.id };
  }

  /** Drops the buffered records up to `lastId`, once D1 has them. */
  drop(lastId: number): void {
    this.database.db.delete(schema.usageBuffer).where(lte(schema.usageBuffer.id, lastId)).run();
    const whole = this.wholeBatch?.lastId === lastId ? this.wholeBatch : undefined;
    this.oldest = whole ? (whole.firstAddedAt ?? null) : undefined;
    this.wholeBatch = undefined;
  }
}

function parseRecord(text: string): UsageRecord | undefined {
  try {
    const parsed = usageRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
