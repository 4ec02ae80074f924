import type { BatchItem } from "drizzle-orm/batch";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";

/** The bot's D1 database through drizzle, for the entry points that hand repositories down (given their `env`). */
export function database(bindings: { DB: D1Database }): DrizzleD1Database {
  return drizzle(bindings.DB);
}

/** Runs the statements in one D1 batch (one round trip, one transaction); none, no call. */
export async function writeBatch(db: DrizzleD1Database, statements: BatchItem<"sqlite">[]): Promise<void> {
  const [first, ...rest] = statements;
  if (first === undefined) return;
  await db.batch([first, ...rest]);
}
