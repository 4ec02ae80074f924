import * as z from "zod";
import { type Account, type ContainerApplication, now, uuid } from "./accounts.ts";
import { fail, ok, type Reply } from "./envelope.ts";
import { PLAN_LIMITS } from "./plan-limits.ts";
import { containersNeedPaid } from "./refusals.ts";
import type { ApiRequest, Route } from "./router.ts";

/**
 * Cloudflare Containers' API under /accounts/:id/containers (v4 envelope on success; its own `{ error, details }` on
 * failure). What wrangler 4.164's `wrangler deploy` does with a `[[containers]]` entry, read from its code and run
 * against this fake:
 * - `--containers-rollout=none`: no Docker, no call here. A new Worker's upload carries `containers: [{ name,
 *   class_name }]` from the config; for an existing Worker wrangler reads the versions of the latest deployment
 *   (`GET …/workers/scripts/:name/versions/:id`, `resources.script_runtime.containers`) and sends that link again, so it
 *   neither adds nor changes one.
 * - `image` a Dockerfile path: wrangler builds and pushes with Docker before anything else; with no Docker CLI or engine
 *   it stops with "The Docker CLI is needed to build the configured image before deploying but could not be launched"
 *   and calls no API at all (the push to registry.cloudflare.com cannot run here, and the fake does not serve it).
 * - `image` a registry reference (registry.cloudflare.com/<account>/…, or Docker Hub, ECR, Artifact Registry): no
 *   Docker. After the upload wrangler reads the uploaded version for the class's Durable Object `namespace_id`, lists
 *   the applications, then creates one (`POST …/applications`) bound to that namespace, or, when it changed, modifies it
 *   (`PATCH …/applications/:id`) and rolls the new configuration out (`POST …/applications/:id/rollouts`).
 * On Free every call here gets the containers API's 401 (refusals.ts); `GET …/containers/me` is how a script can tell.
 */
const Application = z.looseObject({
  name: z.string().min(1),
  configuration: z.looseObject({ image: z.string().min(1) }),
  durable_objects: z.object({ namespace_id: z.string() }).strict().optional(),
  max_instances: z.number().int().min(0).optional(),
  instances: z.number().int().min(0).optional(),
});
const Rollout = z.looseObject({
  description: z.string().optional(),
  strategy: z.string(),
  kind: z.string().optional(),
  target_configuration: z.record(z.string(), z.unknown()),
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
        const app: ContainerApplication = { id: uuid(), name: body.name, createdAt: now(), version: 1, body };
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
      // A changed image or instance type: wrangler modifies the application, then rolls the new configuration out.
      method: "POST",
      pattern: `${base}/applications/:application_id/rollouts`,
      scope: "account",
      handle: paid((request) =>
        withApplication(request, (app) => {
          const body = Rollout.safeParse(parseJson(request));
          if (!body.success) {
            request.violation("unreadable body", z.prettifyError(body.error));
            return {
              status: 400,
              body: { error: "VALIDATE_INPUT", details: { message: z.prettifyError(body.error) } },
            };
          }
          const configuration = (app.body.configuration ?? {}) as Record<string, unknown>;
          app.body = { ...app.body, configuration: { ...configuration, ...body.data.target_configuration } };
          app.version += 1;
          return ok({
            id: uuid(),
            created_at: now(),
            last_updated_at: now(),
            description: body.data.description,
            status: "progressing",
            kind: body.data.kind,
            strategy: body.data.strategy,
            current_version: app.version - 1,
            target_version: app.version,
          });
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
  return { ...app.body, id: app.id, name: app.name, created_at: app.createdAt, version: app.version, instances: 0 };
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
