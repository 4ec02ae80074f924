import * as z from "zod";
import { now, type R2Bucket } from "./accounts.ts";
import { fail, ok, type Reply, raw } from "./envelope.ts";
import { r2NotEnabled } from "./refusals.ts";
import type { ApiRequest, Route } from "./router.ts";

/**
 * R2: buckets (what provisioning checks and creates, `wrangler r2 bucket list/create/delete`) and objects
 * (`wrangler r2 object put/get/delete --remote`). On an account without R2 every call is refused with 10042. Shapes
 * as in workers-sdk's msw R2 handlers and Cloudflare's R2 API reference.
 */
const CreateBody = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/),
    locationHint: z.string().optional(),
    storageClass: z.enum(["Standard", "InfrequentAccess"]).optional(),
  })
  .strict();

export function r2Routes(): Route[] {
  const buckets = "/accounts/:account_id/r2/buckets";
  const bucket = `${buckets}/:bucket_name`;
  const r2 = (handle: (request: ApiRequest) => Reply): Route["handle"] => {
    return (request) => (request.account.r2 ? handle(request) : r2NotEnabled());
  };
  return [
    {
      method: "GET",
      pattern: buckets,
      scope: "account",
      handle: r2((request) => ok({ buckets: [...request.account.buckets.values()].map(describe) })),
    },
    {
      method: "POST",
      pattern: buckets,
      scope: "account",
      handle: r2((request) => {
        let json: unknown;
        try {
          json = JSON.parse(request.body.toString("utf8"));
        } catch {
          request.violation("unreadable body", "not JSON");
          return fail(400, 10040, "The JSON you provided was not well formed.");
        }
        const body = CreateBody.safeParse(json);
        // 10005 for a name R2 does not take, 10040 for a body it cannot read (workers-sdk's msw R2 handlers).
        if (!body.success) {
          return json && typeof (json as { name?: unknown }).name === "string"
            ? fail(400, 10005, "The specified bucket name is not valid.")
            : fail(400, 10040, "The JSON you provided was not well formed.");
        }
        if (request.account.buckets.has(body.data.name)) {
          return fail(409, 10004, "The bucket you tried to create already exists, and you own it.");
        }
        const created: R2Bucket = {
          name: body.data.name,
          creationDate: now(),
          location: (body.data.locationHint ?? "weur").toUpperCase(),
          storageClass: body.data.storageClass ?? "Standard",
          objects: new Map(),
        };
        request.account.buckets.set(created.name, created);
        return ok(describe(created));
      }),
    },
    {
      method: "GET",
      pattern: bucket,
      scope: "account",
      handle: r2((request) => withBucket(request, (b) => ok(describe(b)))),
    },
    {
      method: "DELETE",
      pattern: bucket,
      scope: "account",
      handle: r2((request) =>
        withBucket(request, (found) => {
          if (found.objects.size > 0) return fail(409, 10008, "The bucket you tried to delete is not empty.");
          request.account.buckets.delete(found.name);
          return ok(null);
        }),
      ),
    },
    {
      method: "PUT",
      pattern: `${bucket}/objects/*object_key`,
      scope: "account",
      handle: r2((request) =>
        withBucket(request, (found) => {
          const contentType = request.headers["content-type"] ?? "application/octet-stream";
          found.objects.set(request.params.object_key!, {
            bytes: new Uint8Array(request.body),
            contentType,
            uploaded: now(),
          });
          return ok({ key: request.params.object_key, size: request.body.byteLength, uploaded: now() });
        }),
      ),
    },
    {
      method: "GET",
      pattern: `${bucket}/objects/*object_key`,
      scope: "account",
      handle: r2((request) =>
        withBucket(request, (found) => {
          const object = found.objects.get(request.params.object_key!);
          return object ? raw(object.bytes, object.contentType) : fail(404, 10007, "The specified key does not exist.");
        }),
      ),
    },
    {
      method: "DELETE",
      pattern: `${bucket}/objects/*object_key`,
      scope: "account",
      handle: r2((request) =>
        withBucket(request, (found) => {
          found.objects.delete(request.params.object_key!);
          return ok(null);
        }),
      ),
    },
  ];
}

function describe(bucket: R2Bucket) {
  return {
    name: bucket.name,
    creation_date: bucket.creationDate,
    location: bucket.location,
    storage_class: bucket.storageClass,
  };
}

function withBucket(request: ApiRequest, handle: (bucket: R2Bucket) => Reply): Reply {
  const bucket = request.account.buckets.get(request.params.bucket_name!);
  // 404 with 10006, the code wrangler's provisioning reads as "no such bucket" (its R2 handler).
  return bucket ? handle(bucket) : fail(404, 10006, "The specified bucket does not exist.");
}
