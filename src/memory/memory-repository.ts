import { and, count, desc, eq, getTableColumns, isNotNull, isNull, max, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import * as z from "zod";
import { memories } from "../db/d1-schema.ts";
import { type MemoryAudience, peopleVisibleTo, visibleTo } from "./visibility.ts";

/** A remembered fact as tools read it back, with the provenance it was written under. */
export interface Fact {
  id: number;
  content: string;
  createdAt: number;
  /** What outside content was in view when it was written, if any. */
  outside: string | null;
}

/** A fact with its place: where it was said, whom it is about, whether it is marked private, and what it merged. */
export interface StoredFact extends Fact {
  chatId: number;
  createdBy: number | null;
  aboutUser: number | null;
  private: boolean;
  mergedFrom: string | null;
}

/** A new fact: the chat's (`aboutUser` absent) or a person's. */
export interface NewFact {
  chatId: number;
  content: string;
  createdBy: number | null;
  createdAt: number;
  outside: string | null;
  aboutUser?: number | null;
  private?: boolean;
  mergedFrom?: string | null;
}

const storedFactSchema = z.object({
  id: z.number().int(),
  chatId: z.number().int(),
  content: z.string(),
  createdBy: z.number().int().nullable(),
  createdAt: z.number(),
  outside: z.string().nullable(),
  aboutUser: z.number().int().nullable(),
  // SQLite keeps booleans as 0/1; a raw query reads them so.
  private: z.union([z.boolean(), z.number()]).transform((value) => value === true || value === 1),
  mergedFrom: z.string().nullable(),
});

const columns = getTableColumns(memories);

/**
 * Remembered facts in D1 (a chat's and each person's), with their full-text index (FTS5, BM25): every query of them
 * is here, and every read of a person's facts for a turn goes through the privacy rule (visibility.ts).
 */
export class MemoryRepository {
  private readonly db: DrizzleD1Database;

  constructor(db: DrizzleD1Database) {
    this.db = db;
  }

  /** The chat's own facts (not its people's). */
  async count(chatId: number): Promise<number> {
    const [row] = await this.db
      .select({ stored: count() })
      .from(memories)
      .where(and(eq(memories.chatId, chatId), isNull(memories.aboutUser)));
    return row?.stored ?? 0;
  }

  /** Every fact about one person, wherever it was said. */
  async countAbout(userId: number): Promise<number> {
    const [row] = await this.db.select({ stored: count() }).from(memories).where(eq(memories.aboutUser, userId));
    return row?.stored ?? 0;
  }

  async add(fact: NewFact): Promise<number> {
    const [row] = await this.db.insert(memories).values(fact).returning({ id: memories.id });
    return row!.id;
  }

  /** The chat's latest facts, newest first. */
  recent(chatId: number, limit: number): Promise<StoredFact[]> {
    return this.db
      .select(columns)
      .from(memories)
      .where(and(eq(memories.chatId, chatId), isNull(memories.aboutUser)))
      .orderBy(desc(memories.id))
      .limit(limit);
  }

  /** The latest facts this audience may see (the chat's and its speakers'), newest first. */
  visible(audience: MemoryAudience, limit: number): Promise<StoredFact[]> {
    return this.db.select(columns).from(memories).where(visibleTo(audience)).orderBy(desc(memories.id)).limit(limit);
  }

  /** The speakers' own facts this audience may see, newest first (for the prompt's section on them). */
  people(audience: MemoryAudience, limit: number): Promise<StoredFact[]> {
    if (audience.speakers.length === 0) return Promise.resolve([]);
    return this.db
      .select(columns)
      .from(memories)
      .where(peopleVisibleTo(audience))
      .orderBy(desc(memories.id))
      .limit(limit);
  }

  /** The chat's facts matching an FTS5 expression, best first (the index spans every chat; the join keeps this one). */
  search(chatId: number, match: string, limit: number): Promise<StoredFact[]> {
    return this.searchVisible({ chatId, isPrivate: false, speakers: [] }, match, limit);
  }

  /** The facts this audience may see matching an FTS5 expression, best first. */
  async searchVisible(audience: MemoryAudience, match: string, limit: number): Promise<StoredFact[]> {
    const rows = await this.db.all(sql`
      SELECT ${memories.id} AS id, ${memories.chatId} AS chatId, ${memories.content} AS content,
        ${memories.createdBy} AS createdBy, ${memories.createdAt} AS createdAt, ${memories.outside} AS outside,
        ${memories.aboutUser} AS aboutUser, ${memories.private} AS private, ${memories.mergedFrom} AS mergedFrom
      FROM memories_search JOIN ${memories} ON ${memories.id} = memories_search.rowid
      WHERE memories_search MATCH ${match} AND ${visibleTo(audience)}
      ORDER BY memories_search.rank LIMIT ${limit}`);
    return parsedFacts(rows);
  }

  /** One fact by id, wherever it is (callers check who may see or change it). */
  async byId(id: number): Promise<StoredFact | undefined> {
    const [row] = await this.db.select(columns).from(memories).where(eq(memories.id, id));
    return row;
  }

  /** Every fact about a person, wherever it was said, newest first. */
  aboutPerson(userId: number): Promise<StoredFact[]> {
    return this.db.select(columns).from(memories).where(eq(memories.aboutUser, userId)).orderBy(desc(memories.id));
  }

  /** Every fact said in a chat (its own and its people's), newest first: the console's view of a chat. */
  saidIn(chatId: number, limit: number): Promise<StoredFact[]> {
    return this.db
      .select(columns)
      .from(memories)
      .where(eq(memories.chatId, chatId))
      .orderBy(desc(memories.id))
      .limit(limit);
  }

  /** The people the bot keeps facts about, with how many and the newest's time, most recent first. */
  async peopleKept(limit: number): Promise<{ userId: number; facts: number; lastAt: number }[]> {
    const rows = await this.db
      .select({ userId: memories.aboutUser, facts: count(), lastAt: max(memories.createdAt) })
      .from(memories)
      .where(isNotNull(memories.aboutUser))
      .groupBy(memories.aboutUser)
      .orderBy(desc(max(memories.createdAt)))
      .limit(limit);
    return rows.flatMap((row) =>
      row.userId === null ? [] : [{ userId: row.userId, facts: row.facts, lastAt: row.lastAt ?? 0 }],
    );
  }

  /** Deletes one of the chat's facts; false when it has no fact with that id. */
  async delete(chatId: number, id: number): Promise<boolean> {
    const deleted = await this.db
      .delete(memories)
      .where(and(eq(memories.id, id), eq(memories.chatId, chatId), isNull(memories.aboutUser)))
      .returning({ id: memories.id });
    return deleted.length > 0;
  }

  /** Deletes one fact by id, whatever it is (callers check who may). */
  async deleteById(id: number): Promise<boolean> {
    const deleted = await this.db.delete(memories).where(eq(memories.id, id)).returning({ id: memories.id });
    return deleted.length > 0;
  }

  /** Deletes every fact about a person; how many there were. */
  async deleteAbout(userId: number): Promise<number> {
    const deleted = await this.db.delete(memories).where(eq(memories.aboutUser, userId)).returning({ id: memories.id });
    return deleted.length;
  }

  /** Marks a person's fact private or not (the person's own say); false when there is no such fact of theirs. */
  async setPrivate(id: number, userId: number, isPrivate: boolean): Promise<boolean> {
    const changed = await this.db
      .update(memories)
      .set({ private: isPrivate })
      .where(and(eq(memories.id, id), eq(memories.aboutUser, userId)))
      .returning({ id: memories.id });
    return changed.length > 0;
  }

  /**
   * Replaces some of a person's facts with merged ones, in one batch (D1 runs a batch as a transaction): the facts
   * `replaced` are deleted and `merged` inserted.
   */
  async replace(replaced: readonly number[], merged: readonly NewFact[]): Promise<void> {
    const statements = [
      ...replaced.map((id) => this.db.delete(memories).where(eq(memories.id, id))),
      ...merged.map((fact) => this.db.insert(memories).values(fact)),
    ];
    const [first, ...rest] = statements;
    if (first) await this.db.batch([first, ...rest]);
  }
}

function parsedFacts(rows: readonly unknown[]): StoredFact[] {
  return rows.flatMap((row) => {
    const parsed = storedFactSchema.safeParse(row);
    return parsed.success ? [parsed.data] : [];
  });
}
