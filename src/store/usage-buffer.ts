import { asc, lte, sql } from "drizzle-orm";
import * as schema from "../db/chat-schema.ts";
import { type UsageRecord, usageRecordSchema } from "../db/usage.ts";
import type { ChatDatabase } from "./chat-database.ts";
import { preparedOnce } from "./statements.ts";

/** Usage records of finished turns, kept until the object writes a batch of them to D1 (see `UsageFlush`). */
export class UsageBuffer {
  private readonly statements;
  /**
   * When the oldest buffered record was made (`null`: none is; `undefined`: not known, read it). Asked at every alarm
   * and turn; only this buffer writes the table, so the answer is kept until a write changes it.
   */
  private oldest: number | null | undefined;

  constructor(private readonly database: ChatDatabase) {
    const { db } = database;
    const { usageBuffer } = schema;
    const placeholder = sql.placeholder;
    this.statements = preparedOnce(() => ({
      add: db
        .insert(usageBuffer)
        .values({ record: placeholder("record"), createdAt: placeholder("now") })
        .prepare(),
      oldest: db
        .select({ createdAt: usageBuffer.createdAt })
        .from(usageBuffer)
        .orderBy(asc(usageBuffer.id))
        .limit(1)
        .prepare(),
    }));
  }

  add(record: UsageRecord, now: number): void {
    this.statements().add.run({ record: JSON.stringify(record), now });
    // Into an empty buffer this is the oldest. (Rolled back with its turn, the next batch finds none and says so.)
    if (this.oldest === null) this.oldest = now;
  }

  oldestAt(): number | undefined {
    if (this.oldest === undefined) this.oldest = this.statements().oldest.all()[0]?.createdAt ?? null;
    return this.oldest ?? undefined;
  }

  /**
   * The oldest `limit` rows: their readable records (each with its row id) and the last row id read. A row no schema
   * reads any more is left out of `records` but inside `lastId`, so dropping the batch drops it too.
   */
  batch(limit = 500): { records: { id: number; record: UsageRecord }[]; lastId: number | undefined } {
    const { usageBuffer } = schema;
    const rows = this.database.db.select().from(usageBuffer).orderBy(asc(usageBuffer.id)).limit(limit).all();
    this.oldest = rows[0]?.createdAt ?? null;
    const records = rows.flatMap((row) => {
      const record = parseRecord(row.record);
      if (record === undefined) console.warn(`usage buffer row ${row.id} is unreadable; it is dropped`);
      return record === undefined ? [] : [{ id: row.id, record }];
    });
    return { records, lastId: rows.at(-1)?.id };
  }

  /** Drops the buffered records up to `lastId`, once D1 has them. */
  drop(lastId: number): void {
    this.oldest = undefined;
    this.database.db.delete(schema.usageBuffer).where(lte(schema.usageBuffer.id, lastId)).run();
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
