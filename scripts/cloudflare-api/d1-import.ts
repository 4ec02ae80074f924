import { createHash, randomUUID } from "node:crypto";
import * as z from "zod";
import type { D1Database } from "./accounts.ts";
import { runSql } from "./d1-run.ts";
import { fail, ok, type Reply } from "./envelope.ts";
import type { Route } from "./router.ts";
import type { CloudflareState } from "./state.ts";

/**
 * `wrangler d1 execute --remote --file`: D1's import API. `POST …/import { action: "init", etag }` says where to put
 * the file (an R2 presigned URL in Cloudflare; here the fake's own `/__d1-upload/<file>`, see `receiveUpload`), the
 * file is PUT there and answered with its MD5 as ETag, `{ action: "ingest", filename, etag }` runs it (held to the same
 * limits as /query, all or nothing), and `{ action: "poll", current_bookmark }` reports the end. Shapes as wrangler
 * 4.164's d1/execute code reads them (workers-sdk has no test handler for them).
 */
const ImportBody = z.discriminatedUnion("action", [
  z.object({ action: z.literal("init"), etag: z.string().min(1) }).strict(),
  z.object({ action: z.literal("ingest"), filename: z.string(), etag: z.string() }).strict(),
  z.object({ action: z.literal("poll"), current_bookmark: z.string().optional() }).strict(),
]);

export interface PendingImport {
  accountId: string;
  uuid: string;
  etag: string;
  bytes?: Buffer;
  /** The finished import's answer, for a poll. */
  done?: unknown;
}

export function d1ImportRoutes(state: CloudflareState): Route[] {
  return [
    {
      method: "POST",
      pattern: "/accounts/:account_id/d1/database/:database/import",
      scope: "account",
      handle: (request) => {
        const account = request.account;
        const id = request.params.database!;
        const db = account.d1.get(id) ?? [...account.d1.values()].find((candidate) => candidate.name === id);
        if (!db) return fail(404, 7404, `The database ${id} could not be found`);
        let json: unknown;
        try {
          json = JSON.parse(request.body.toString("utf8"));
        } catch {
          json = undefined;
        }
        const body = ImportBody.safeParse(json);
        if (!body.success) {
          request.violation("unreadable body", z.prettifyError(body.error));
          return fail(400, 10001, z.prettifyError(body.error));
        }
        const action = body.data;
        if (action.action === "init") {
          const filename = `${randomUUID()}.sql`;
          state.d1Imports.set(filename, { accountId: account.id, uuid: db.uuid, etag: action.etag });
          return ok({ success: true, upload_url: `http://${request.headers.host}/__d1-upload/${filename}`, filename });
        }
        if (action.action === "poll") {
          const done = [...state.d1Imports.values()].find((pending) => pending.uuid === db.uuid && pending.done);
          return done ? ok(done.done) : ok({ success: false, error: "No import is running." });
        }
        const pending = state.d1Imports.get(action.filename);
        if (!pending?.bytes || pending.uuid !== db.uuid || pending.etag !== action.etag) {
          return ok({ success: false, error: "The file was not uploaded." });
        }
        pending.done = ingest(db, pending.bytes.toString("utf8"));
        return ok(pending.done);
      },
    },
  ];
}

/** The presigned upload's PUT (outside /client/v4): keeps the file, answers its MD5 as the ETag, as R2 does. */
export function receiveUpload(state: CloudflareState, filename: string, bytes: Buffer): Reply {
  const pending = state.d1Imports.get(filename);
  if (!pending) return { status: 404, body: { error: "no such upload" } };
  pending.bytes = bytes;
  return { status: 200, body: {}, etag: `"${createHash("md5").update(bytes).digest("hex")}"` };
}

function ingest(db: D1Database, sql: string): unknown {
  const started = performance.now();
  const run = runSql(db, sql);
  if (!run.ok) {
    const error = (run.refusal.body as { errors: { message: string }[] }).errors[0]?.message ?? "import failed";
    return { success: false, error };
  }
  const bookmark = `${Date.now().toString(16).padStart(8, "0")}-00000000-00000000-${randomUUID().replaceAll("-", "")}`;
  return {
    success: true,
    type: "import",
    status: "complete",
    at_bookmark: bookmark,
    messages: [`Processed ${run.results.length} queries.`],
    result: {
      num_queries: run.results.length,
      final_bookmark: bookmark,
      meta: {
        duration: performance.now() - started,
        rows_read: run.results.reduce((sum, result) => sum + result.meta.rows_read, 0),
        rows_written: run.results.reduce((sum, result) => sum + result.meta.rows_written, 0),
        size_after: run.results.at(-1)?.meta.size_after ?? 0,
        changed_db: run.results.some((result) => result.meta.changed_db),
      },
    },
  };
}
