import {
  type Account,
  type Binding,
  currentVersion,
  type Deployment,
  hexId,
  now,
  uuid,
  type WorkerScript,
  type WorkerVersion,
} from "./accounts.ts";
import { resolveBindings } from "./bindings.ts";
import { planMigrations } from "./durable-objects.ts";
import type { Reply } from "./envelope.ts";
import { PLAN_LIMITS } from "./plan-limits.ts";
import { containersNeedPaidOnUpload, workerTooLarge } from "./refusals.ts";
import type { ParsedUpload } from "./worker-upload.ts";

/**
 * Making a Worker version from an upload, as Cloudflare does: migrations applied in order, bindings resolved and
 * checked, the size and the number of environment variables held to the plan; nothing changes when any is refused.
 */
export function createVersion(
  account: Account,
  scriptName: string,
  upload: ParsedUpload,
  source: string,
): { script: WorkerScript; version: WorkerVersion } | Reply {
  const existing = account.scripts.get(scriptName);
  const previous = existing && currentVersion(existing);
  const tooLarge = checkSize(account, upload.size);
  if (tooLarge) return tooLarge;
  if ((upload.metadata.containers ?? []).length > 0 && !PLAN_LIMITS[account.plan].containers) {
    return containersNeedPaidOnUpload();
  }
  const migrated = planMigrations(account, scriptName, existing?.migrationTag, upload.metadata.migrations);
  if ("status" in migrated) return migrated;
  const bindings = resolveBindings(
    account,
    scriptName,
    previous,
    upload.metadata.bindings as Binding[],
    upload.metadata.keep_bindings ?? [],
    migrated.namespaces,
  );
  if (!Array.isArray(bindings)) return bindings;

  const script = existing ?? newScript(scriptName);
  const version: WorkerVersion = {
    id: uuid(),
    number: script.versions.length + 1,
    createdOn: now(),
    source,
    annotations: Object.fromEntries(
      Object.entries(upload.metadata.annotations ?? {}).filter((entry): entry is [string, string] => !!entry[1]),
    ),
    mainModule: upload.modules[0]!.name,
    modules: upload.modules,
    compatibilityDate: upload.metadata.compatibility_date,
    compatibilityFlags: upload.metadata.compatibility_flags,
    bindings,
    containers: upload.metadata.containers,
    placement: upload.metadata.placement,
    limits: upload.metadata.limits,
    size: upload.size,
  };
  script.versions.push(version);
  script.modifiedOn = version.createdOn;
  if (upload.metadata.migrations) {
    script.migrationTag = migrated.newTag;
    script.migrationsApplied.push({
      oldTag: upload.metadata.migrations.old_tag,
      newTag: upload.metadata.migrations.new_tag,
      steps: upload.metadata.migrations.steps,
    });
  }
  account.durableObjects.clear();
  for (const [key, namespace] of migrated.namespaces) account.durableObjects.set(key, namespace);
  account.scripts.set(scriptName, script);
  return { script, version };
}

/** A version made by changing one binding (a secret put or delete): the rest as the current version has it. */
export function versionWithBindings(script: WorkerScript, bindings: Binding[], source: string): WorkerVersion {
  const previous = currentVersion(script)!;
  const version: WorkerVersion = {
    ...previous,
    id: uuid(),
    number: script.versions.length + 1,
    createdOn: now(),
    source,
    annotations: {},
    bindings,
  };
  script.versions.push(version);
  deploy(script, version.id, source);
  return version;
}

export function deploy(
  script: WorkerScript,
  versionId: string,
  source: string,
  annotations: Record<string, string> = {},
): Deployment {
  const deployment: Deployment = {
    id: uuid(),
    createdOn: now(),
    source,
    strategy: "percentage",
    versions: [{ version_id: versionId, percentage: 100 }],
    annotations,
  };
  script.deployments.push(deployment);
  return deployment;
}

function checkSize(account: Account, size: ParsedUpload["size"]): Reply | undefined {
  const limits = PLAN_LIMITS[account.plan];
  const mib = (bytes: number) => bytes / (1024 * 1024);
  if (account.sizeRule === "gzip") {
    if (size.gzipBytes <= limits.legacyGzipBytes) return undefined;
    return account.plan === "free"
      ? workerTooLarge(mib(limits.legacyGzipBytes), mib(PLAN_LIMITS.paid.legacyGzipBytes))
      : workerTooLarge(mib(limits.legacyGzipBytes));
  }
  return size.bytes <= limits.uncompressedBytes ? undefined : workerTooLarge(mib(limits.uncompressedBytes));
}

function newScript(name: string): WorkerScript {
  const created = now();
  return {
    name,
    tag: hexId(),
    createdOn: created,
    modifiedOn: created,
    versions: [],
    deployments: [],
    migrationTag: undefined,
    migrationsApplied: [],
    // A new Worker is not on workers.dev until wrangler switches it on (`POST …/subdomain`).
    workersDev: { enabled: false, previewsEnabled: false },
    settings: { logpush: false, tailConsumers: [], observability: { enabled: false }, tags: [] },
    lastDeployedFrom: "wrangler",
  };
}
