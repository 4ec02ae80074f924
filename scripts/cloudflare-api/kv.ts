import * as z from "zod";
import { hexId, type KvNamespace } from "./accounts.ts";
import { fail, ok, page, type Reply, raw } from "./envelope.ts";
import type { ApiRequest, Route } from "./router.ts";

/**
 * Workers KV: namespaces (what provisioning lists and creates, and `wrangler kv namespace list/create`) and their keys
 * (`wrangler kv key put/get/list/delete --remote`, `kv bulk put`). Shapes as in Cloudflare's KV API reference and
 * workers-sdk's mock-kv helpers.
 */
const Title = z.object({ title: z.string().min(1).max(512) }).strict();
const BulkItem = z
  .object({
    key: z.string().min(1).max(512),
    value: z.string(),
    base64: z.boolean().optional(),
    expiration: z.number().optional(),
    expiration_ttl: z.number().optional(),
    metadata: z.unknown().optional(),
  })
  .strict();

export function kvRoutes(): Route[] {
  const namespaces = "/accounts/:account_id/storage/kv/namespaces";
  const namespace = `${namespaces}/:namespace_id`;
  return [
    {
      method: "GET",
      pattern: namespaces,
      scope: "account",
      handle: (request) => {
        const direction = request.query.get("direction") === "desc" ? -1 : 1;
        const all = [...request.account.kv.values()]
          .sort((a, b) => direction * a.title.localeCompare(b.title))
          .map(describe);
        return page(all, request.query, 20);
      },
    },
    {
      method: "POST",
      pattern: namespaces,
      scope: "account",
      handle: (request) => {
        const body = Title.safeParse(parse(request));
        if (!body.success) return fail(400, 10001, z.prettifyError(body.error));
        if ([...request.account.kv.values()].some((existing) => existing.title === body.data.title)) {
          // 10014 and its words as real deploy logs quote them (wrangler's provisioning retries hit it: it creates
          // `<worker>-<binding>` again when a first deploy failed after creating the namespace).
          return fail(400, 10014, "a namespace with this account ID and title already exists");
        }
        const created: KvNamespace = { id: hexId(), title: body.data.title, keys: new Map() };
        request.account.kv.set(created.id, created);
        return ok(describe(created));
      },
    },
    {
      method: "GET",
      pattern: namespace,
      scope: "account",
      handle: (request) => withNamespace(request, (kv) => ok(describe(kv))),
    },
    {
      method: "DELETE",
      pattern: namespace,
      scope: "account",
      handle: (request) =>
        withNamespace(request, (kv) => {
          request.account.kv.delete(kv.id);
          return ok(null);
        }),
    },
    {
      method: "GET",
      pattern: `${namespace}/keys`,
      scope: "account",
      handle: (request) =>
        withNamespace(request, (kv) => {
          const prefix = request.query.get("prefix") ?? "";
          const keys = [...kv.keys.entries()]
            .filter(([name]) => name.startsWith(prefix))
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([name, entry]) => ({
              name,
              ...(entry.expiration === undefined ? {} : { expiration: entry.expiration }),
              ...(entry.metadata === undefined ? {} : { metadata: entry.metadata }),
            }));
          return ok(keys, { count: keys.length, cursor: "" });
        }),
    },
    {
      method: "PUT",
      pattern: `${namespace}/values/:key`,
      scope: "account",
      handle: (request) =>
        withNamespace(request, (kv) => {
          const expiration = request.query.get("expiration");
          kv.keys.set(request.params.key!, {
            value: new Uint8Array(request.body),
            ...(expiration ? { expiration: Number(expiration) } : {}),
          });
          return ok(null);
        }),
    },
    {
      method: "GET",
      pattern: `${namespace}/values/:key`,
      scope: "account",
      handle: (request) =>
        withNamespace(request, (kv) => {
          const entry = kv.keys.get(request.params.key!);
          return entry ? raw(entry.value, "application/octet-stream") : fail(404, 10009, "get: 'key not found'");
        }),
    },
    {
      method: "DELETE",
      pattern: `${namespace}/values/:key`,
      scope: "account",
      handle: (request) =>
        withNamespace(request, (kv) => {
          kv.keys.delete(request.params.key!);
          return ok(null);
        }),
    },
    {
      method: "PUT",
      pattern: `${namespace}/bulk`,
      scope: "account",
      handle: (request) =>
        withNamespace(request, (kv) => {
          const items = z.array(BulkItem).safeParse(parse(request));
          if (!items.success) return fail(400, 10001, z.prettifyError(items.error));
          for (const item of items.data) {
            const bytes = item.base64 ? Buffer.from(item.value, "base64") : Buffer.from(item.value, "utf8");
            kv.keys.set(item.key, {
              value: new Uint8Array(bytes),
              ...(item.metadata === undefined ? {} : { metadata: item.metadata }),
              ...(item.expiration === undefined ? {} : { expiration: item.expiration }),
            });
          }
          return ok({ successful_key_count: items.data.length, unsuccessful_keys: [] });
        }),
    },
  ];
}

function describe(kv: KvNamespace) {
  return { id: kv.id, title: kv.title, supports_url_encoding: true };
}

function parse(request: ApiRequest): unknown {
  try {
    return JSON.parse(request.body.toString("utf8"));
  } catch {
    request.violation("unreadable body", "not JSON");
    return undefined;
  }
}

function withNamespace(request: ApiRequest, handle: (kv: KvNamespace) => Reply): Reply {
  const kv = request.account.kv.get(request.params.namespace_id!);
  // 404, code 10013 "get namespace: 'namespace not found'" (the KV API's not-found words as commonly seen).
  return kv ? handle(kv) : fail(404, 10013, "get namespace: 'namespace not found'");
}
