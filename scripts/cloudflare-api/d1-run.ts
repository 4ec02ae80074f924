import type { SQLInputValue } from "node:sqlite";
import type { D1Database } from "./accounts.ts";
import { parameterTokens, splitStatements } from "./d1-sql.ts";
import type { Reply } from "./envelope.ts";
import { D1_LIMITS } from "./plan-limits.ts";
import { d1SqliteError, d1StatementTooLong, d1TooManyVariables } from "./refusals.ts";

/**
 * Running a request's SQL on a D1 database as D1 does: every statement checked against D1's limits first, then all
 * of them in one transaction (all or none), each answered with `{ results, success, meta }`. SQLite's errors are worded
 * as D1 words them: the message, then the result code's name.
 */
export interface StatementResult {
  results: Record<string, unknown>[];
  success: true;
  meta: {
    served_by: string;
    served_by_region: string;
    served_by_primary: boolean;
    timings: { sql_duration_ms: number };
    duration: number;
    changes: number;
    last_row_id: number;
    changed_db: boolean;
    size_after: number;
    rows_read: number;
    rows_written: number;
  };
}

const RESULT_CODES: Record<number, string> = {
  1: "SQLITE_ERROR",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  11: "SQLITE_CORRUPT",
  13: "SQLITE_FULL",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  25: "SQLITE_RANGE",
};

/** Bound parameters go to the statement when the request has only one (as the /query endpoint takes them). */
export function runSql(
  db: D1Database,
  sql: string,
  params: SQLInputValue[] = [],
): { ok: true; results: StatementResult[] } | { ok: false; refusal: Reply } {
  const statements = splitStatements(sql);
  for (const statement of statements) {
    if (Buffer.byteLength(statement.text) > D1_LIMITS.statementBytes)
      return { ok: false, refusal: d1StatementTooLong() };
    const tokens = parameterTokens(statement.text);
    const numbered = tokens.find((token) => (token.number ?? 0) > D1_LIMITS.boundParameters);
    if (numbered) {
      const message = `variable number must be between ?1 and ?${D1_LIMITS.boundParameters} at offset ${numbered.offset}`;
      return { ok: false, refusal: d1SqliteError(message, "SQLITE_ERROR") };
    }
    const over = tokens[D1_LIMITS.boundParameters];
    if (over) return { ok: false, refusal: d1TooManyVariables(over.offset) };
  }
  const results: StatementResult[] = [];
  const sizeBefore = fileSize(db);
  db.sqlite.exec("BEGIN");
  try {
    for (const statement of statements) {
      const started = performance.now();
      const prepared = db.sqlite.prepare(statement.text);
      const bound = statements.length === 1 ? params : [];
      const reads = prepared.columns().length > 0;
      const rows = reads ? prepared.all(...bound) : [];
      const change = reads ? { changes: 0, lastInsertRowid: 0 } : prepared.run(...bound);
      const duration = performance.now() - started;
      results.push({
        results: rows.map((row) => ({ ...row }) as Record<string, unknown>),
        success: true,
        meta: {
          served_by: "v3-prod",
          served_by_region: "WEUR",
          served_by_primary: true,
          timings: { sql_duration_ms: duration },
          duration,
          changes: Number(change.changes),
          last_row_id: Number(change.lastInsertRowid),
          changed_db: Number(change.changes) > 0 || /^\s*(CREATE|DROP|ALTER)\b/i.test(statement.text),
          size_after: 0,
          rows_read: rows.length,
          rows_written: Number(change.changes),
        },
      });
    }
    db.sqlite.exec("COMMIT");
  } catch (error) {
    db.sqlite.exec("ROLLBACK");
    const failure = error as { message?: string; errcode?: number };
    const name = RESULT_CODES[(failure.errcode ?? 1) & 0xff] ?? "SQLITE_ERROR";
    return { ok: false, refusal: d1SqliteError(failure.message ?? String(error), name) };
  }
  const sizeAfter = fileSize(db);
  for (const result of results) result.meta.size_after = sizeAfter || sizeBefore;
  return { ok: true, results };
}

export function fileSize(db: D1Database): number {
  const pages = db.sqlite.prepare("PRAGMA page_count").get() as { page_count: number };
  const size = db.sqlite.prepare("PRAGMA page_size").get() as { page_size: number };
  return pages.page_count * size.page_size;
}
