import { DatabaseSync } from "node:sqlite";
import * as z from "zod";
import { type Account, type D1Database, now, uuid } from "./accounts.ts";
import { fileSize, runSql } from "./d1-run.ts";
import { fail, ok, page, type Reply } from "./envelope.ts";
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
          const run = runSql(
            db,
            body.sql,
            (body.params ?? []).map((value) => (typeof value === "boolean" ? Number(value) : value)),
          );
          return run.ok ? ok(run.results) : run.refusal;
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
