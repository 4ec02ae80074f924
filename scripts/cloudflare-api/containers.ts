import * as z from "zod";
import { type Account, type ContainerApplication, now, uuid } from "./accounts.ts";
import { fail, ok, type Reply } from "./envelope.ts";
import { PLAN_LIMITS } from "./plan-limits.ts";
import { containersNeedPaid } from "./refusals.ts";
import type { ApiRequest, Route } from "./router.ts";

/**
 * Cloudflare Containers' API under /accounts/:id/containers, as `wrangler deploy` reaches it once the Worker is
 * uploaded and an image is ready (an image given as a registry reference; a Dockerfile needs Docker to build and push
 * first): it lists the applications, then creates one bound to the Durable Object class's namespace, or modifies the
 * one it finds. `GET …/containers/me` is the account's containers profile, which a Free account cannot read. On Free
 * every call here is refused with the containers API's own 401 (see refusals.ts).
 */
const Application = z.looseObject({
  name: z.string().min(1),
  configuration: z.looseObject({ image: z.string().min(1) }),
  durable_objects: z.object({ namespace_id: z.string() }).strict().optional(),
  max_instances: z.number().int().min(0).optional(),
  instances: z.number().int().min(0).optional(),
});
const KNOWN_FIELDS = [
  "name",
  "scheduling_policy",
  "observability",
  "configuration",
  "instances",
  "max_instances",
  "constraints",
  "affinities",
  "durable_objects",
  "rollout_active_grace_period",
];

export function containerRoutes(): Route[] {
  const base = "/accounts/:account_id/containers";
  const paid = (handle: (request: ApiRequest) => Reply): Route["handle"] => {
    return (request) => (PLAN_LIMITS[request.account.plan].containers ? handle(request) : containersNeedPaid());
  };
  return [
    {
      method: "GET",
      pattern: `${base}/me`,
      scope: "account",
      handle: paid((request) => ok(profile(request.account))),
    },
    {
      method: "GET",
      pattern: `${base}/applications`,
      scope: "account",
      handle: paid((request) => {
        const name = request.query.get("name");
        return ok(
          [...request.account.containers.values()].filter((app) => name === null || app.name === name).map(describe),
        );
      }),
    },
    {
      method: "POST",
      pattern: `${base}/applications`,
      scope: "account",
      handle: paid((request) => {
        const read = readApplication(request);
        if (!read.ok) return read.reply;
        const body = read.application;
        if ([...request.account.containers.values()].some((app) => app.name === body.name)) {
          return { status: 400, body: { error: "APPLICATION_ALREADY_EXISTS", details: { name: body.name } } };
        }
        const namespaceId = body.durable_objects?.namespace_id;
        if (namespaceId && ![...request.account.durableObjects.values()].some((ns) => ns.id === namespaceId)) {
          return {
            status: 400,
            body: { error: "DURABLE_OBJECT_NAMESPACE_NOT_FOUND", details: { namespace_id: namespaceId } },
          };
        }
        const app: ContainerApplication = { id: uuid(), name: body.name, createdAt: now(), body };
        request.account.containers.set(app.id, app);
        return ok(describe(app));
      }),
    },
    {
      method: "GET",
      pattern: `${base}/applications/:application_id`,
      scope: "account",
      handle: paid((request) => withApplication(request, (app) => ok(describe(app)))),
    },
    {
      method: "PATCH",
      pattern: `${base}/applications/:application_id`,
      scope: "account",
      handle: paid((request) =>
        withApplication(request, (app) => {
          const patch = parseJson(request);
          if (!patch || typeof patch !== "object") return fail(400, 10001, "could not read the request body");
          for (const key of Object.keys(patch)) {
            if (!KNOWN_FIELDS.includes(key)) request.violation("unknown field", `application.${key}`);
          }
          app.body = { ...app.body, ...patch };
          return ok(describe(app));
        }),
      ),
    },
    {
      method: "DELETE",
      pattern: `${base}/applications/:application_id`,
      scope: "account",
      handle: paid((request) =>
        withApplication(request, (app) => {
          request.account.containers.delete(app.id);
          return ok({});
        }),
      ),
    },
  ];
}

/** The containers profile of a Paid account (limits as Cloudflare's Containers limits page states them). */
function profile(account: Account) {
  return {
    external_account_id: account.id,
    limits: {
      account_id: account.id,
      total_vcpu: 1500,
      total_memory_mib: 6 * 1024 * 1024,
      total_disk_mb: 30_000_000,
      vcpu_per_deployment: 4,
      memory_mib_per_deployment: 12 * 1024,
      disk_mb_per_deployment: 20_000,
    },
    locations: [],
    defaults: { vcpus: 0.0625, memory_mib: 256, disk_mb: 2000 },
  };
}

function describe(app: ContainerApplication) {
  return { ...app.body, id: app.id, name: app.name, created_at: app.createdAt, version: 1, instances: 0 };
}

function parseJson(request: ApiRequest): unknown {
  try {
    return JSON.parse(request.body.toString("utf8"));
  } catch {
    request.violation("unreadable body", "not JSON");
    return undefined;
  }
}

function readApplication(
  request: ApiRequest,
): { ok: true; application: z.infer<typeof Application> } | { ok: false; reply: Reply } {
  const json = parseJson(request);
  const parsed = Application.safeParse(json);
  if (!parsed.success) {
    request.violation("unreadable body", z.prettifyError(parsed.error));
    const reply = {
      status: 400,
      body: { error: "VALIDATE_INPUT", details: { message: z.prettifyError(parsed.error) } },
    };
    return { ok: false, reply };
  }
  for (const key of Object.keys(parsed.data)) {
    if (!KNOWN_FIELDS.includes(key)) request.violation("unknown field", `application.${key}`);
  }
  return { ok: true, application: parsed.data };
}

function withApplication(request: ApiRequest, handle: (app: ContainerApplication) => Reply): Reply {
  const app = request.account.containers.get(request.params.application_id!);
  return app ? handle(app) : { status: 404, body: { error: "APPLICATION_NOT_FOUND" } };
}
