import { and, count, desc, eq, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import * as z from "zod";
import { memories } from "../db/d1-schema.ts";

/** A remembered fact as tools read it back, with the provenance it was written under. */
export interface Fact {
  id: number;
  content: string;
  createdAt: number;
  /** What outside content was in view when it was written, if any. */
  outside: string | null;
}

const factSchema = z.object({
  id: z.number().int(),
  content: z.string(),
  createdAt: z.number(),
  outside: z.string().nullable(),
});

/** A chat's remembered facts in D1, with their full-text index (FTS5, BM25): every query of them is here. */
export class MemoryRepository {
  private readonly db: DrizzleD1Database;

  constructor(db: DrizzleD1Database) {
    this.db = db;
  }

  async count(chatId: number): Promise<number> {
    const [row] = await this.db.select({ stored: count() }).from(memories).where(eq(memories.chatId, chatId));
    return row?.stored ?? 0;
  }

  async add(fact: {
    chatId: number;
    content: string;
    createdBy: number | null;
    createdAt: number;
    outside: string | null;
  }): Promise<number> {
    const [row] = await this.db.insert(memories).values(fact).returning({ id: memories.id });
    return row!.id;
  }

  /** The chat's latest facts, newest first. */
  recent(chatId: number, limit: number): Promise<Fact[]> {
    return this.db
      .select({ id: memories.id, content: memories.content, createdAt: memories.createdAt, outside: memories.outside })
      .from(memories)
      .where(eq(memories.chatId, chatId))
      .orderBy(desc(memories.id))
      .limit(limit);
  }

  /** The chat's facts matching an FTS5 expression, best first (the index spans every chat; the join keeps this one). */
  async search(chatId: number, match: string, limit: number): Promise<Fact[]> {
    const rows = await this.db.all(sql`
      SELECT m.id AS id, m.content AS content, m.created_at AS createdAt, m.outside AS outside
      FROM memories_search JOIN memories m ON m.id = memories_search.rowid
      WHERE memories_search MATCH ${match} AND m.chat_id = ${chatId}
      ORDER BY memories_search.rank LIMIT ${limit}`);
    return rows.flatMap((row) => {
      const parsed = factSchema.safeParse(row);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** Deletes one of the chat's facts; false when it has no fact with that id. */
  async delete(chatId: number, id: number): Promise<boolean> {
    const deleted = await this.db
      .delete(memories)
      .where(and(eq(memories.id, id), eq(memories.chatId, chatId)))
      .returning({ id: memories.id });
    return deleted.length > 0;
  }
}
