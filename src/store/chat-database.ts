import { type DrizzleSqliteDODatabase, drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../db/chat-migrations/migrations.js";
import * as schema from "../db/chat-schema.ts";

export type ChatDb = DrizzleSqliteDODatabase<typeof schema>;

/** The chat object's SQLite, under its stores: migrations, and one transaction for writes that land together. */
export class ChatDatabase {
  readonly db: ChatDb;
  private readonly rollbackListeners: (() => void)[] = [];

  constructor(private readonly storage: DurableObjectStorage) {
    this.db = drizzle(storage, { schema });
  }

  /**
   * Brings the object's SQLite up to date. `fresh`: it was empty before (the chat's first event ever, or after its
   * storage was erased), so nothing of the chat is stored anywhere that a turn here wrote.
   */
  async migrate(): Promise<{ fresh: boolean }> {
    const fresh =
      this.storage.sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
        .toArray().length === 0;
    await migrate(this.db, migrations);
    return { fresh };
  }

  /** Runs `work` atomically: the history write and the inbox update of one turn land together or not at all. */
  atomically<T>(work: () => T): T {
    try {
      // The storage's own transaction: the stores' statements run on `db`, which is the same connection, so drizzle's
      // transaction object (built anew for every call, and unused here) is left out.
      return this.storage.transactionSync(work);
    } catch (error) {
      for (const listener of this.rollbackListeners) listener();
      throw error;
    }
  }

  /** A store whose memory may now disagree with the rows (a rolled-back write) hears of it. */
  onRollback(listener: () => void): void {
    this.rollbackListeners.push(listener);
  }
}
