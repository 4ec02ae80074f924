import { asc, count, inArray, lt, type SQL, sql } from "drizzle-orm";
import * as z from "zod";
import * as schema from "../db/chat-schema.ts";
import { ftsTerms } from "../db/fts-query.ts";
import type { ChatDatabase } from "./chat-database.ts";
import type { MetaStore } from "./meta-store.ts";
import { searchIndexedThroughIdSlot } from "./store-slots.ts";

/** A stored message as search shows it: its row id, who wrote it, its text (or the part around the match), when. */
export interface HistoryHit {
  id: number;
  role: "user" | "assistant";
  text: string;
  createdAt: number;
  /** Provenance: what outside content the turn that wrote it had read (see protocol/messages.ts). */
  outside: string | undefined;
}

/** A full-text search of the chat's history: the words to look for, how many and in what order, within which dates. */
export interface HistoryQuery {
  /** Plain words (letters and digits); each may match by its stem or, from four letters, as a prefix. */
  words: readonly string[];
  limit: number;
  /** Best match first (BM25), or the newest matches first. */
  order: "best" | "newest";
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  until?: number;
}

/** The index (FTS5, ranked by BM25), as 0003_history_search.sql created it until 2026-11-28. */
const CREATE_INDEX = `CREATE VIRTUAL TABLE IF NOT EXISTS history_search USING fts5(
  text, role UNINDEXED, created_at UNINDEXED, outside UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2'
)`;
const CREATE_FORGET_TRIGGER = `CREATE TRIGGER IF NOT EXISTS history_search_forget_archived AFTER DELETE ON history_archive
BEGIN
  DELETE FROM history_search WHERE rowid = old.id;
END`;

/** Rows BM25 scores at most for one best-first search, beyond those holding all its words (see `keyword`). */
const MAX_RANKED = 2_000;

/** Longer texts are shown as the part around the match (FTS5's snippet), so that a few hits stay short. */
const SHOWN_CHARS = 600;
const SNIPPET_TOKENS = 48;

const hitSchema = z.object({
  id: z.number().int(),
  role: z.enum(["user", "assistant"]),
  text: z.string(),
  created_at: z.number(),
  outside: z.string().nullable(),
});

/**
 * The chat's full-text index over all of its history, live and archived (an FTS5 table: see
 * src/db/chat-migrations/README.md), and the archive's retention. It lives in the chat's own
 * object, so a search can only ever reach this chat's words.
 *
 * Rows are indexed when the index is read, not as they are written: every reading method first indexes the rows
 * written since the last read (`searchIndexedThroughId` in meta). Most turns never search, and indexing each row in
 * its own turn's transaction (a trigger until 0005) was about a twentieth of a plain turn's CPU. Ids only grow
 * (AUTOINCREMENT), and a row moved to the archive keeps its id, so "every row after the mark, live or archived" is
 * exactly what is missing.
 *
 * The index itself is created by its first read, too: creating an FTS5 table (five tables of its own) and its trigger
 * was half of what a new chat's migrations cost, for an index most chats never read. An object whose migrations
 * created it (0003 did until 2026-11-28) keeps it.
 */
export class HistorySearchStore {
  /** Whether the index's table exists: unknown until first asked, then remembered (only this object creates it). */
  private indexExists: boolean | undefined;

  constructor(
    private readonly database: ChatDatabase,
    private readonly meta: MetaStore,
  ) {
    database.onRollback(() => {
      this.indexExists = undefined;
    });
  }

  /** The database was just created: there is no index, and nothing needs to ask. */
  knownAbsent(): void {
    this.indexExists = false;
  }

  /** Deletes every entry of the index (an erase, after the archive is deleted); nothing to do when there is none. */
  clear(): void {
    if (this.exists()) this.database.db.run(sql`DELETE FROM history_search`);
  }

  /**
   * Matches for the words, at most `limit`, newest first or best first; none when no word is given.
   *
   * Best first is BM25 (FTS5's rank), which scores every matching row: over thousands of matches of common words that
   * costs tens of milliseconds. So the messages holding all the words come first (few rows to score), then those
   * holding the rarest words, the commonest left out while the candidates would pass MAX_RANKED: they are the words
   * BM25 weighs least, so the order barely changes and the cost stays bounded.
   */
  keyword(query: HistoryQuery): HistoryHit[] {
    const terms = ftsTerms(query.words);
    if (terms.length === 0) return [];
    this.catchUp();
    const filters = dateFilters(query);
    if (query.order === "newest") return this.ranked(terms.join(" OR "), filters, sql`rowid DESC`, query.limit);
    const all = terms.length > 1 ? this.ranked(terms.join(" AND "), filters, sql`rank`, query.limit) : [];
    if (all.length >= query.limit) return all;
    const counted = terms
      .map((term) => ({ term, rows: this.count(term, filters) }))
      .filter((term) => term.rows > 0)
      .sort((left, right) => left.rows - right.rows);
    const rare: string[] = [];
    let candidates = 0;
    for (const { term, rows } of counted) {
      if (rare.length > 0 && candidates + rows > MAX_RANKED) break;
      rare.push(term);
      candidates += rows;
    }
    if (rare.length === 0) return all;
    const seen = new Set(all.map((hit) => hit.id));
    const some = this.ranked(rare.join(" OR "), filters, sql`rank`, query.limit).filter((hit) => !seen.has(hit.id));
    return [...all, ...some].slice(0, query.limit);
  }

  /** These messages, in the order given (ids this chat does not have are left out). */
  byIds(ids: readonly number[]): HistoryHit[] {
    if (ids.length === 0) return [];
    this.catchUp();
    const rows = this.hits(sql`
      SELECT rowid AS id, role, created_at, outside,
        CASE WHEN length(text) > ${SHOWN_CHARS} THEN substr(text, 1, ${SHOWN_CHARS - 1}) || '…' ELSE text END AS text
      FROM history_search WHERE rowid IN (${sql.join(
        ids.slice(0, 90).map((id) => sql`${id}`),
        sql`, `,
      )})`);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Indexed messages after `afterId`, oldest first, with their whole text: what the vector index has not seen yet. */
  after(afterId: number, limit: number): { id: number; text: string }[] {
    this.catchUp();
    return this.database.db
      .all(sql`SELECT rowid AS id, text FROM history_search WHERE rowid > ${afterId} ORDER BY rowid LIMIT ${limit}`)
      .flatMap((row) => {
        const parsed = z.object({ id: z.number().int(), text: z.string() }).safeParse(row);
        return parsed.success ? [parsed.data] : [];
      });
  }

  /**
   * Deletes archived rows older than `before` (epoch ms), at most `limit` per call, and returns their ids. Their
   * index entries go with them (a trigger); the live history is never touched here.
   */
  forgetArchivedBefore(before: number, limit: number): number[] {
    const { db } = this.database;
    const { historyArchive } = schema;
    const oldest = db
      .select({ id: historyArchive.id })
      .from(historyArchive)
      .where(lt(historyArchive.createdAt, before))
      .orderBy(asc(historyArchive.id))
      .limit(limit);
    return db
      .delete(historyArchive)
      .where(inArray(historyArchive.id, oldest))
      .returning({ id: historyArchive.id })
      .all()
      .map((row) => row.id);
  }

  /** How many messages are archived (for /status). */
  archived(): number {
    return this.database.db.select({ count: count() }).from(schema.historyArchive).all()[0]?.count ?? 0;
  }

  /**
   * Indexes the user and assistant rows written since the index was last read, live or archived, in one statement
   * (what the trigger of 0003 did row by row), and moves the mark to the newest row. One read when nothing is new; a
   * row indexed already is left as it is, so a mark that fell behind costs time, not a failed search.
   */
  private catchUp(): void {
    if (!this.exists()) this.create();
    const through = this.meta.get(searchIndexedThroughIdSlot) ?? 0;
    const newest = z
      .object({ id: z.number().int().nullable() })
      .parse(
        this.database.db.get(
          sql`SELECT max(id) AS id FROM (SELECT max(id) AS id FROM history UNION ALL SELECT max(id) FROM history_archive)`,
        ),
      ).id;
    if (newest === null || newest <= through) return;
    this.database.atomically(() => {
      this.database.db.run(sql`
        INSERT INTO history_search (rowid, text, role, created_at, outside)
        SELECT id, body, role, created_at, outside FROM (
          SELECT id, role, created_at, json_extract(message, '$.outside') AS outside, trim(
            coalesce(json_extract(message, '$.content'), '') || char(10) || coalesce((
              SELECT group_concat(coalesce(json_extract(value, '$.text'), json_extract(value, '$.fileName')), char(10))
              FROM json_each(message, '$.attachments')
            ), ''),
            char(32, 9, 10, 13)
          ) AS body
          FROM (
            SELECT id, role, message, created_at FROM history WHERE id > ${through} AND id <= ${newest}
            UNION ALL
            SELECT id, role, message, created_at FROM history_archive WHERE id > ${through} AND id <= ${newest}
          )
          WHERE role IN ('user', 'assistant') AND json_valid(message)
        ) WHERE body <> '' AND NOT EXISTS (SELECT 1 FROM history_search WHERE rowid = id)`);
      this.meta.set(searchIndexedThroughIdSlot, newest);
    });
  }

  private exists(): boolean {
    this.indexExists ??=
      this.database.db.get(
        sql`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'history_search'`,
      ) !== undefined;
    return this.indexExists;
  }

  /**
   * The index, its trigger (an archived row deleted for good takes its entry with it) and the mark at zero, together:
   * the catch-up that follows indexes every row there is.
   */
  private create(): void {
    this.database.atomically(() => {
      this.database.db.run(sql.raw(CREATE_INDEX));
      this.database.db.run(sql.raw(CREATE_FORGET_TRIGGER));
      this.meta.set(searchIndexedThroughIdSlot, 0);
    });
    this.indexExists = true;
  }

  private ranked(match: string, filters: SQL[], order: SQL, limit: number): HistoryHit[] {
    return this.hits(sql`
      SELECT rowid AS id, role, created_at, outside,
        CASE WHEN length(text) > ${SHOWN_CHARS}
          THEN snippet(history_search, 0, '', '', '…', ${SNIPPET_TOKENS})
          ELSE text END AS text
      FROM history_search WHERE ${sql.join([sql`history_search MATCH ${match}`, ...filters], sql` AND `)}
      ORDER BY ${order} LIMIT ${limit}`);
  }

  /** How many messages hold the term (within the dates): counting does not score, so it is cheap. */
  private count(term: string, filters: SQL[]): number {
    const row = this.database.db.get(
      sql`SELECT count(*) AS count FROM history_search WHERE ${sql.join([sql`history_search MATCH ${term}`, ...filters], sql` AND `)}`,
    );
    const parsed = z.object({ count: z.number().int() }).safeParse(row);
    return parsed.success ? parsed.data.count : 0;
  }

  private hits(query: SQL): HistoryHit[] {
    return this.database.db.all(query).flatMap((row) => {
      const parsed = hitSchema.safeParse(row);
      if (!parsed.success) return [];
      const { id, role, text, created_at, outside } = parsed.data;
      return [{ id, role, text, createdAt: created_at, outside: outside ?? undefined }];
    });
  }
}

function dateFilters(query: HistoryQuery): SQL[] {
  return [
    ...(query.from === undefined ? [] : [sql`created_at >= ${query.from}`]),
    ...(query.until === undefined ? [] : [sql`created_at < ${query.until}`]),
  ];
}
