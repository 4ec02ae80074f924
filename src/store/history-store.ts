import { asc, count, desc, gt, lte, max, min, sql } from "drizzle-orm";
import * as schema from "../db/chat-schema.ts";
import { knownJsonBytes, utf8Bytes } from "../protocol/json-size.ts";
import { type HistoryMessage, historyMessageSchema } from "../protocol/messages.ts";
import type { ChatDatabase } from "./chat-database.ts";
import { orderedLimit, preparedOnce, preparedPer } from "./statements.ts";

/** Rows written by one insert at most: a turn with tools writes more, in as many statements as it takes. */
const APPEND_AT_ONCE = 4;

/** A row of the window: its id, its role and its message (none when no schema reads it any more). */
interface WindowRow {
  id: number;
  role: string;
  messages: HistoryMessage[];
}

/**
 * The conversation, provider-neutral: one `HistoryMessage` per row, in order, each read back through its schema. Rows
 * past the newest `keep` (and the whole live history on /new) move to the archive, where only search reads them.
 */
export class HistoryStore {
  private readonly statements;
  private readonly last;
  private readonly appendRows;
  /**
   * What this store knows of its rows without reading them, kept because the compaction check and the prune run
   * after every turn and only this store writes `history`: the lowest and highest id (`null`: no rows), and the last
   * totals read after a summary's id, moved on by each append. A rolled-back write forgets both.
   */
  private ids: { lowest: number | null; highest: number | null } | undefined;
  private totals: { afterId: number; count: number; bytes: number } | undefined;
  /**
   * The newest `reach` rows after `afterId`, oldest first, as the last window read them, moved on by each append and
   * prune: every turn reads the window, and reading and parsing it again was a twentieth of a plain turn's CPU.
   */
  private recent: { afterId: number; reach: number; rows: WindowRow[] } | undefined;

  constructor(private readonly database: ChatDatabase) {
    database.onRollback(() => {
      this.ids = undefined;
      this.totals = undefined;
      this.recent = undefined;
    });
    const { db } = database;
    const { history } = schema;
    const placeholder = sql.placeholder;
    this.statements = {
      count: preparedOnce(() => db.select({ count: count() }).from(history).prepare()),
      ids: preparedOnce(() =>
        db
          .select({ lowest: min(history.id), highest: max(history.id) })
          .from(history)
          .prepare(),
      ),
      // Run after every drain by the compaction check.
      totalsAfter: preparedOnce(() =>
        db
          .select({ count: count(), bytes: sql<number | null>`sum(length(cast(${history.message} as blob)))` })
          .from(history)
          .where(gt(history.id, placeholder("afterId")))
          .prepare(),
      ),
      // A trigger moves each deleted row to the archive first (0003_history_search.sql): one statement still.
      prune: preparedOnce(() =>
        db
          .delete(history)
          .where(lte(history.id, sql`(select max(${history.id}) from ${history}) - ${placeholder("keep")}`))
          .prepare(),
      ),
    };
    // `rows` rows in one statement, prepared once per count (up to APPEND_AT_ONCE): a plain turn writes its question
    // and answer in one statement, not two.
    this.appendRows = preparedPer((rows: number) =>
      db
        .insert(history)
        .values(
          Array.from({ length: rows }, (_, row) => ({
            role: sql`${placeholder(`role${row}`)}`,
            message: placeholder(`message${row}`),
            createdAt: placeholder("now"),
          })),
        )
        .returning({ id: history.id })
        .prepare(),
    );
    // The newest rows after a summary's id, newest first: the window's read, once per turn.
    this.last = preparedPer((limit: number) =>
      db
        .select({ id: history.id, role: history.role, message: history.message })
        .from(history)
        .where(gt(history.id, placeholder("afterId")))
        .orderBy(orderedLimit(desc(history.id), limit))
        .prepare(),
    );
  }

  /**
   * The last `limit` messages, starting at a user message so that no tool result is separated from the assistant
   * message that called it (and so that the window opens the way every provider wants). When `limit` rows hold no
   * user message at all, it reaches further back, up to four times as far. Only rows after `afterId` (those a
   * summary does not cover) are taken.
   */
  window(limit: number, afterId = 0): HistoryMessage[] {
    for (const reach of [limit, limit * 4]) {
      const rows = this.newest(reach, afterId);
      const start = rows.findIndex((row) => row.role === "user");
      if (start >= 0) return rows.slice(start).flatMap((row) => row.messages);
      if (rows.length < reach) break;
    }
    return [];
  }

  private newest(reach: number, afterId: number): readonly WindowRow[] {
    if (this.recent?.afterId === afterId && this.recent.reach === reach) return this.recent.rows;
    const rows = this.last(reach)
      .all({ afterId })
      .reverse()
      .map((row) => ({ id: row.id, role: row.role, messages: parseRow(row.message) }));
    this.recent = { afterId, reach, rows };
    return rows;
  }

  append(messages: readonly HistoryMessage[], now: number): void {
    // Prepared statements of up to APPEND_AT_ONCE rows (building a multi-row insert anew each time was a sixth of a
    // plain turn's CPU); inside the turn's transaction the statements cost no commit each.
    for (let start = 0; start < messages.length; start += APPEND_AT_ONCE) {
      const batch = messages.slice(start, start + APPEND_AT_ONCE);
      const texts = batch.map((message) => JSON.stringify(message));
      const values: Record<string, string | number> = { now };
      batch.forEach((message, row) => {
        values[`role${row}`] = message.role;
        values[`message${row}`] = texts[row]!;
      });
      // RETURNING hands rows back in no promised order; the ids grow in the order of the VALUES.
      const ids = this.appendRows(batch.length)
        .all(values)
        .map((row) => row.id)
        .sort((left, right) => left - right);
      if (ids.length !== batch.length) throw new Error("a history row was written without an id");
      for (let row = 0; row < batch.length; row++) this.appended(batch[row]!, ids[row]!, texts[row]!);
    }
  }

  /** What this store keeps of its rows, moved on by one appended row. */
  private appended(message: HistoryMessage, id: number, text: string): void {
    if (this.ids) this.ids = { lowest: this.ids.lowest ?? id, highest: id };
    let bytes: number | undefined;
    if (this.recent) {
      // A copy as stored, so that nothing the caller changes later reaches the window: `text` is this message's JSON
      // (parsing it is cheaper than structuredClone, and its schema check was a hundredth of a plain turn's CPU, for
      // the message it was just given). Its size is known with it, for the next turn's window.
      const copy = JSON.parse(text) as HistoryMessage;
      bytes = knownJsonBytes(copy, text);
      this.recent.rows.push({ id, role: message.role, messages: [copy] });
      if (this.recent.rows.length > this.recent.reach) this.recent.rows.shift();
    }
    if (this.totals)
      this.totals = {
        ...this.totals,
        count: this.totals.count + 1,
        bytes: this.totals.bytes + (bytes ?? utf8Bytes(text)),
      };
  }

  /**
   * Moves the oldest rows past the newest `keep` to the archive (the chat's retention deletes them from there); a
   * window still opens at a user message (see `window`).
   */
  prune(keep: number): void {
    this.ids ??= this.statements.ids().all()[0] ?? { lowest: null, highest: null };
    const { lowest, highest } = this.ids;
    // Ids only grow and rows only leave from the oldest end, so nothing at or below `highest - keep` means nothing to move.
    if (lowest === null || highest === null || lowest > highest - keep) return;
    this.statements.prune().run({ keep });
    // A lower bound (ids may have gaps): a later prune at worst runs a DELETE that moves nothing.
    this.ids = keep > 0 ? { lowest: highest - keep + 1, highest } : { lowest: null, highest: null };
    if (this.recent) this.recent.rows = this.recent.rows.filter((row) => row.id > highest - keep);
    // Totals after a summary that had read every moved row stay as they were.
    if (this.totals && this.totals.afterId < highest - keep) this.totals = undefined;
  }

  /** How many rows are stored after `afterId`, and their size in UTF-8 bytes, without reading them. */
  totalsAfter(afterId: number): { count: number; bytes: number } {
    if (this.totals?.afterId !== afterId) {
      const row = this.statements.totalsAfter().all({ afterId })[0];
      this.totals = { afterId, count: row?.count ?? 0, bytes: row?.bytes ?? 0 };
    }
    return { count: this.totals.count, bytes: this.totals.bytes };
  }

  /** The stored rows after `afterId` (the oldest `limit`, or all), oldest first, with their ids. */
  after(afterId: number, limit?: number): { id: number; message: HistoryMessage }[] {
    const { history } = schema;
    const query = this.database.db
      .select({ id: history.id, message: history.message })
      .from(history)
      .where(gt(history.id, afterId))
      .orderBy(asc(history.id));
    return (limit === undefined ? query : query.limit(limit))
      .all()
      .flatMap((row) => parseRow(row.message).map((message) => ({ id: row.id, message })));
  }

  count(): number {
    return this.statements.count().all()[0]?.count ?? 0;
  }

  /** /new: the live history is emptied into the archive, so the model starts afresh and search still finds it. */
  clear(): void {
    this.prune(0);
  }
}

/** A row as a message, or nothing when it no longer reads as one (it is left out of the window, not fatal). */
function parseRow(text: string): HistoryMessage[] {
  try {
    const parsed = historyMessageSchema.safeParse(JSON.parse(text));
    return parsed.success ? [parsed.data] : [];
  } catch {
    return [];
  }
}
