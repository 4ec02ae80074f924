import * as z from "zod";
import type { Reply } from "./envelope.ts";
import type { CloudflareApi } from "./server.ts";
import type { CloudflareState } from "./state.ts";
import { describeViolation } from "./violations.ts";

/**
 * `/__control/*`: the fake's own JSON endpoints, for a test or script that runs it in another process.
 * - `POST /__control/reset` `{ accounts? }`: empty accounts (the given ones, or the starting ones), no violations.
 * - `POST /__control/account` `{ id, plan?, r2?, sizeRule?, subdomain? }`: switches an account, keeping its contents.
 * - `GET /__control/state`: every account's Workers, bindings, secrets' names, D1, KV, R2, containers.
 * - `GET /__control/violations`: what Cloudflare would not know, with a line of text each.
 * - `GET /__control/calls`: every API call answered (method, path, status).
 * - `GET /__control/endpoints`: the endpoints served.
 * - `POST /__control/query` `{ account, database, sql, params? }`: rows of a D1 database.
 */
const AccountSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  plan: z.enum(["free", "paid"]),
  r2: z.boolean(),
  subdomain: z.string().optional(),
  sizeRule: z.enum(["uncompressed", "gzip"]).optional(),
});
const ResetSchema = z.object({ accounts: z.array(AccountSchema).optional() }).strict();
const ConfigureSchema = z
  .object({
    id: z.string().min(1),
    plan: z.enum(["free", "paid"]).optional(),
    r2: z.boolean().optional(),
    sizeRule: z.enum(["uncompressed", "gzip"]).optional(),
    subdomain: z.string().optional(),
  })
  .strict();
const QuerySchema = z
  .object({
    account: z.string(),
    database: z.string(),
    sql: z.string(),
    params: z.array(z.union([z.string(), z.number(), z.null()])).optional(),
  })
  .strict();

export async function controlRequest(
  state: CloudflareState,
  api: CloudflareApi,
  method: string,
  url: URL,
  body: Buffer,
): Promise<Reply> {
  const json = (): unknown => (body.byteLength === 0 ? {} : JSON.parse(body.toString("utf8")));
  try {
    switch (`${method} ${url.pathname}`) {
      case "POST /__control/reset": {
        const { accounts } = ResetSchema.parse(json());
        state.reset(accounts);
        api.calls.length = 0;
        return { status: 200, body: { ok: true } };
      }
      case "POST /__control/account": {
        const { id, ...change } = ConfigureSchema.parse(json());
        state.configure(id, change);
        return { status: 200, body: { ok: true } };
      }
      case "GET /__control/state":
        return { status: 200, body: state.report() };
      case "GET /__control/violations":
        return {
          status: 200,
          body: state.violations.map((violation) => ({ ...violation, text: describeViolation(violation) })),
        };
      case "GET /__control/calls":
        return { status: 200, body: api.calls };
      case "GET /__control/endpoints":
        return { status: 200, body: api.endpoints() };
      case "POST /__control/query": {
        const query = QuerySchema.parse(json());
        return { status: 200, body: state.query(query.account, query.database, query.sql, ...(query.params ?? [])) };
      }
      default:
        return { status: 404, body: { error: `no control endpoint ${method} ${url.pathname}` } };
    }
  } catch (error) {
    return { status: 400, body: { error: error instanceof Error ? error.message : String(error) } };
  }
}
