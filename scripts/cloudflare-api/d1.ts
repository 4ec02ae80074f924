import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import * as z from "zod";
import { type Account, type D1Database, now, uuid } from "./accounts.ts";
import { parameterTokens, splitStatements } from "./d1-sql.ts";
import { fail, ok, page, type Reply } from "./envelope.ts";
import { D1_LIMITS } from "./plan-limits.ts";
import { d1SqliteError, d1StatementTooLong, d1TooManyVariables } from "./refusals.ts";
import type { ApiRequest, Route } from "./router.ts";

/**
 * D1: databases (each a real SQLite database in memory, `node:sqlite`), found by uuid or by name as the API allows,
 * and `POST …/query`, which runs a request's statements in order, in one transaction, each held to D1's limits
 * (100,000 bytes, 100 bound parameters) and answered per statement with `{ results, success, meta }`. That is what
 * `wrangler d1 execute --remote --command` and `wrangler d1 migrations apply --remote` (its `d1_migrations` table
 * included) send.
 */
const CreateBody = z
  .object({
    name: z.string().min(1),
    primary_location_hint: z.string().optional(),
    jurisdiction: z.string().optional(),
  })
  .strict();
const QueryBody = z
  .object({ sql: z.string(), params: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).optional() })
  .strict();

export function d1Routes(): Route[] {
  const database = "/accounts/:account_id/d1/database/:database";
  return [
    {
      method: "GET",
      pattern: "/accounts/:account_id/d1/database",
      scope: "account",
      handle: (request) => {
        const name = request.query.get("name");
        const all = [...request.account.d1.values()].filter((db) => name === null || db.name.includes(name));
        return page(all.map(describe), request.query, 10);
      },
    },
    {
      method: "POST",
      pattern: "/accounts/:account_id/d1/database",
      scope: "account",
      handle: (request) => {
        const body = json(request, CreateBody);
        if ("status" in body) return body;
        if ([...request.account.d1.values()].some((db) => db.name === body.name)) {
          // wrangler turns 7502 into "A database with that name already exists"; the API's own words this fake's.
          return fail(400, 7502, "A database with that name already exists.");
        }
        const created: D1Database = {
          uuid: uuid(),
          name: body.name,
          createdAt: now(),
          sqlite: new DatabaseSync(":memory:"),
        };
        request.account.d1.set(created.uuid, created);
        return ok(describe(created));
      },
    },
    {
      method: "GET",
      pattern: database,
      scope: "account",
      handle: (request) => withDatabase(request, (db) => ok(describe(db))),
    },
    {
      method: "DELETE",
      pattern: database,
      scope: "account",
      handle: (request) =>
        withDatabase(request, (db) => {
          db.sqlite.close();
          request.account.d1.delete(db.uuid);
          return ok(null);
        }),
    },
    {
      method: "POST",
      pattern: `${database}/query`,
      scope: "account",
      handle: (request) =>
        withDatabase(request, (db) => {
          const body = json(request, QueryBody);
          if ("status" in body) return body;
          return query(
            db,
            body.sql,
            (body.params ?? []).map((value) => (typeof value === "boolean" ? Number(value) : value)),
          );
        }),
    },
  ];
}

function findDatabase(account: Account, idOrName: string): D1Database | undefined {
  return account.d1.get(idOrName) ?? [...account.d1.values()].find((db) => db.name === idOrName);
}

function withDatabase(request: ApiRequest, handle: (db: D1Database) => Reply): Reply {
  const db = findDatabase(request.account, request.params.database!);
  // 404 with 7404, "The database <id> could not be found", as real deploy logs quote it (wrangler reads the 404).
  return db ? handle(db) : fail(404, 7404, `The database ${request.params.database} could not be found`);
}

function describe(db: D1Database) {
  const tables = db.sqlite
    .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .get() as { n: number };
  return {
    uuid: db.uuid,
    name: db.name,
    created_at: db.createdAt,
    version: "production",
    num_tables: tables.n,
    file_size: fileSize(db),
    read_replication: { mode: "disabled" },
  };
}

function fileSize(db: D1Database): number {
  const pages = db.sqlite.prepare("PRAGMA page_count").get() as { page_count: number };
  const size = db.sqlite.prepare("PRAGMA page_size").get() as { page_size: number };
  return pages.page_count * size.page_size;
}

function json<T>(request: ApiRequest, schema: z.ZodType<T>): T | Reply {
  let value: unknown;
  try {
    value = JSON.parse(request.body.toString("utf8"));
  } catch {
    request.violation("unreadable body", "not JSON");
    return fail(400, 10001, "Unable to parse the request body as JSON");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    request.violation("unreadable body", z.prettifyError(parsed.error));
    return fail(400, 10001, z.prettifyError(parsed.error));
  }
  return parsed.data;
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

/** Runs the statements in one transaction: all of them, or (on any refusal or error) none. */
function query(db: D1Database, sql: string, params: SQLInputValue[]): Reply {
  const statements = splitStatements(sql);
  for (const statement of statements) {
    if (Buffer.byteLength(statement.text) > D1_LIMITS.statementBytes) return d1StatementTooLong();
    const tokens = parameterTokens(statement.text);
    const numbered = tokens.find((token) => (token.number ?? 0) > D1_LIMITS.boundParameters);
    if (numbered) {
      return d1SqliteError(
        `variable number must be between ?1 and ?${D1_LIMITS.boundParameters} at offset ${numbered.offset}`,
        "SQLITE_ERROR",
      );
    }
    const over = tokens[D1_LIMITS.boundParameters];
    if (over) return d1TooManyVariables(over.offset);
  }
  const results: unknown[] = [];
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
        results: rows.map((row) => ({ ...row })),
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
    return d1SqliteError(
      failure.message ?? String(error),
      RESULT_CODES[(failure.errcode ?? 1) & 0xff] ?? "SQLITE_ERROR",
    );
  }
  const sizeAfter = fileSize(db);
  for (const result of results as { meta: { size_after: number } }[]) result.meta.size_after = sizeAfter || sizeBefore;
  return ok(results);
}
