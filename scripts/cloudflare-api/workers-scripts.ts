import * as z from "zod";
import { type Account, currentVersion, publicBinding, type WorkerScript, type WorkerVersion } from "./accounts.ts";
import { fail, ok, page, type Reply } from "./envelope.ts";
import type { ApiRequest, Route } from "./router.ts";
import { CodeUpdateStrategy, parseUpload } from "./worker-upload.ts";
import { createVersion, deploy } from "./worker-versions.ts";

/**
 * Workers scripts, versions and deployments: what `wrangler deploy` reads (the service's migration tag, the latest
 * deployment, the settings whose bindings provisioning inherits) and writes (the upload, a deployment, script
 * settings). A missing Worker is 404 with 10090 on the services endpoint and 10007 elsewhere, as Cloudflare answers.
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
          const patch = ScriptSettingsPatch.safeParse(JSON.parse(request.body.toString("utf8") || "{}"));
          if (!patch.success) return fail(400, 10021, z.prettifyError(patch.error));
          for (const key of Object.keys(JSON.parse(request.body.toString("utf8") || "{}"))) {
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
    {
      method: "GET",
      pattern: `${SCRIPT}/versions`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) =>
          ok({ items: [...script.versions].reverse().map((v) => versionResult(script, v)) }),
        ),
    },
    {
      method: "GET",
      pattern: `${SCRIPT}/versions/:version_id`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          const version = script.versions.find((candidate) => candidate.id === request.params.version_id);
          return version
            ? ok(versionResult(script, version))
            : fail(404, 10071, "The requested Worker version could not be found");
        }),
    },
    {
      method: "GET",
      pattern: `${SCRIPT}/deployments`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) =>
          ok({ deployments: [...script.deployments].reverse().map((deployment) => deploymentResult(deployment)) }),
        ),
    },
    {
      method: "POST",
      pattern: `${SCRIPT}/deployments`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          const body = DeploymentBody.safeParse(JSON.parse(request.body.toString("utf8") || "{}"));
          if (!body.success) return fail(400, 10021, z.prettifyError(body.error));
          const total = body.data.versions.reduce((sum, version) => sum + version.percentage, 0);
          if (total !== 100) return fail(400, 10210, "Invalid deployment: percentages must sum to 100");
          const unknown = body.data.versions.find((v) => !script.versions.some((known) => known.id === v.version_id));
          if (unknown) return fail(400, 10210, `Invalid deployment: Version not found: ${unknown.version_id}`);
          const deployment = deploy(
            script,
            body.data.versions[0]!.version_id,
            "wrangler",
            Object.fromEntries(
              Object.entries(body.data.annotations ?? {}).filter((entry): entry is [string, string] => !!entry[1]),
            ),
          );
          deployment.versions = body.data.versions;
          return ok(deploymentResult(deployment));
        }),
    },
  ];
}

const ScriptSettingsPatch = z.object({
  logpush: z.boolean().optional(),
  observability: z.record(z.string(), z.unknown()).optional(),
  tail_consumers: z.array(z.unknown()).nullable().optional(),
  tags: z.array(z.string()).nullable().optional(),
});

const DeploymentBody = z.object({
  strategy: z.literal("percentage"),
  versions: z.array(z.object({ version_id: z.string(), percentage: z.number() })).min(1),
  annotations: z.record(z.string(), z.string().optional()).optional(),
  code_update_strategy: CodeUpdateStrategy.optional(),
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

/** A script as the API describes it (services' `default_environment.script`, an upload's result, the list). */
function scriptSummary(script: WorkerScript) {
  const version = currentVersion(script);
  return {
    id: script.name,
    tag: script.tag,
    tags: script.settings.tags,
    etag: version?.id.replaceAll("-", "") ?? "",
    handlers: ["fetch"],
    created_on: script.createdOn,
    modified_on: script.modifiedOn,
    ...(script.migrationTag === undefined ? {} : { migration_tag: script.migrationTag }),
    usage_model: "standard",
    compatibility_date: version?.compatibilityDate,
    compatibility_flags: version?.compatibilityFlags ?? [],
    last_deployed_from: script.lastDeployedFrom,
    logpush: script.settings.logpush,
    observability: script.settings.observability,
    has_modules: true,
    has_assets: false,
  };
}

function scriptSettings(script: WorkerScript) {
  return {
    logpush: script.settings.logpush,
    observability: script.settings.observability,
    tail_consumers: script.settings.tailConsumers,
    tags: script.settings.tags,
  };
}

function versionResult(script: WorkerScript, version: WorkerVersion) {
  return {
    id: version.id,
    number: version.number,
    metadata: {
      created_on: version.createdOn,
      modified_on: version.createdOn,
      source: version.source,
      author_id: "7c5dae5552338874e5053f2534d2767a",
      author_email: "user@example.com",
    },
    annotations: { "workers/triggered_by": "upload", ...version.annotations },
    resources: {
      script: {
        etag: version.id.replaceAll("-", ""),
        handlers: ["fetch"],
        last_deployed_from: script.lastDeployedFrom,
      },
      script_runtime: {
        compatibility_date: version.compatibilityDate,
        compatibility_flags: version.compatibilityFlags,
        usage_model: "standard",
        ...(version.limits ? { limits: version.limits } : {}),
        ...(version.containers ? { containers: version.containers } : {}),
      },
      bindings: version.bindings.map(publicBinding),
    },
  };
}

function deploymentResult(deployment: WorkerScript["deployments"][number]) {
  return {
    id: deployment.id,
    source: deployment.source,
    strategy: deployment.strategy,
    author_email: "user@example.com",
    created_on: deployment.createdOn,
    annotations: deployment.annotations,
    versions: deployment.versions,
  };
}
