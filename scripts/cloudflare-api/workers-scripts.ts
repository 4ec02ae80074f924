import * as z from "zod";
import { type Account, currentVersion, publicBinding, type WorkerScript } from "./accounts.ts";
import { fail, ok, page, type Reply } from "./envelope.ts";
import type { ApiRequest, Route } from "./router.ts";
import { parseUpload } from "./worker-upload.ts";
import { createVersion, deploy } from "./worker-versions.ts";
import { scriptSettings, scriptSummary, versionResult } from "./worker-views.ts";

/**
 * Workers scripts: what `wrangler deploy` reads (the service, whose `migration_tag` decides which migrations it sends;
 * the settings, whose bindings provisioning inherits) and writes (the upload, to the script or as a version; its
 * script settings). A missing Worker is 404 with 10090 on the services endpoint and 10007 elsewhere, as Cloudflare
 * answers.
 */
const SCRIPT = "/accounts/:account_id/workers/scripts/:script_name";

function scriptNotFound(): Reply {
  return fail(404, 10007, "This Worker does not exist on your account.");
}

export function withScript(request: ApiRequest, handle: (script: WorkerScript) => Reply | Promise<Reply>) {
  const script = request.account.scripts.get(request.params.script_name!);
  return script ? handle(script) : scriptNotFound();
}

export function workerRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/accounts/:account_id/workers/services/:script_name",
      scope: "account",
      handle: (request) => {
        const script = request.account.scripts.get(request.params.script_name!);
        if (!script) return fail(404, 10090, "workers.api.error.service_not_found");
        return ok({
          id: script.name,
          default_environment: {
            environment: "production",
            created_on: script.createdOn,
            modified_on: script.modifiedOn,
            script: scriptSummary(script),
          },
          created_on: script.createdOn,
          modified_on: script.modifiedOn,
        });
      },
    },
    {
      method: "GET",
      pattern: "/accounts/:account_id/workers/scripts",
      scope: "account",
      handle: (request) => ok([...request.account.scripts.values()].map(scriptSummary)),
    },
    { method: "PUT", pattern: SCRIPT, scope: "account", handle: (request) => upload(request, "deploy") },
    {
      method: "GET",
      pattern: "/accounts/:account_id/workers/durable_objects/namespaces",
      scope: "account",
      handle: (request) =>
        page(
          [...request.account.durableObjects.values()].map((namespace) => ({
            id: namespace.id,
            name: namespace.name,
            script: namespace.script,
            class: namespace.className,
            use_sqlite: namespace.useSqlite,
          })),
          request.query,
          20,
        ),
    },
    {
      method: "DELETE",
      pattern: SCRIPT,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          request.account.scripts.delete(script.name);
          for (const [key, namespace] of request.account.durableObjects) {
            if (namespace.script === script.name) request.account.durableObjects.delete(key);
          }
          return ok(null);
        }),
    },
    {
      method: "GET",
      pattern: `${SCRIPT}/settings`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          const version = currentVersion(script);
          return ok({
            bindings: version?.bindings.map(publicBinding) ?? [],
            compatibility_date: version?.compatibilityDate,
            compatibility_flags: version?.compatibilityFlags ?? [],
            logpush: script.settings.logpush,
            observability: script.settings.observability,
            placement: version?.placement ?? {},
            tail_consumers: script.settings.tailConsumers,
            tags: script.settings.tags,
            usage_model: "standard",
          });
        }),
    },
    {
      method: "GET",
      pattern: `${SCRIPT}/script-settings`,
      scope: "account",
      handle: (request) => withScript(request, (script) => ok(scriptSettings(script))),
    },
    {
      method: "PATCH",
      pattern: `${SCRIPT}/script-settings`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          let json: unknown;
          try {
            json = JSON.parse(request.body.toString("utf8"));
          } catch {
            json = undefined;
          }
          const patch = ScriptSettingsPatch.safeParse(json);
          if (!patch.success) {
            request.violation("unreadable body", z.prettifyError(patch.error));
            return fail(400, 10021, z.prettifyError(patch.error));
          }
          for (const key of Object.keys(json as object)) {
            if (!(key in ScriptSettingsPatch.shape)) request.violation("unknown field", key);
          }
          if (patch.data.logpush !== undefined) script.settings.logpush = patch.data.logpush;
          if (patch.data.observability !== undefined) script.settings.observability = patch.data.observability;
          if (patch.data.tail_consumers !== undefined) script.settings.tailConsumers = patch.data.tail_consumers ?? [];
          if (patch.data.tags !== undefined) script.settings.tags = patch.data.tags ?? [];
          return ok(scriptSettings(script));
        }),
    },
    {
      method: "POST",
      pattern: `${SCRIPT}/versions`,
      scope: "account",
      handle: (request) => upload(request, "version"),
    },
  ];
}

const ScriptSettingsPatch = z.object({
  logpush: z.boolean().optional(),
  observability: z.record(z.string(), z.unknown()).optional(),
  tail_consumers: z.array(z.unknown()).nullable().optional(),
  tags: z.array(z.string()).nullable().optional(),
});

async function upload(request: ApiRequest, kind: "deploy" | "version"): Promise<Reply> {
  const parsed = parseUpload(request.headers["content-type"], request.body);
  if ("error" in parsed) {
    request.violation("unreadable body", parsed.error);
    return fail(400, 10021, parsed.error);
  }
  for (const unknown of parsed.unknown) request.violation(unknown.problem, unknown.detail);
  const unknownType = parsed.unknown.find((unknown) => unknown.problem === "unknown binding type");
  // Cloudflare refuses a binding type it does not have (10021, validation); the words are this fake's.
  if (unknownType) return fail(400, 10021, `Unknown binding type: ${unknownType.detail}`);
  const account: Account = request.account;
  const created = createVersion(account, request.params.script_name!, parsed, "wrangler");
  if ("status" in created) return created;
  const { script, version } = created;
  if (parsed.metadata.observability) script.settings.observability = parsed.metadata.observability;
  if (parsed.metadata.logpush !== undefined) script.settings.logpush = parsed.metadata.logpush;
  if (parsed.metadata.tail_consumers) script.settings.tailConsumers = parsed.metadata.tail_consumers;
  if (kind === "version") return ok({ ...versionResult(script, version), startup_time_ms: 10 });
  // An upload to the script itself is deployed at once, to all traffic.
  deploy(script, version.id, "wrangler", version.annotations);
  return ok({
    ...scriptSummary(script),
    deployment_id: version.id,
    startup_time_ms: 10,
  });
}
