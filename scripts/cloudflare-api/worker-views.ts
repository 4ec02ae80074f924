import { currentVersion, publicBinding, type WorkerScript, type WorkerVersion } from "./accounts.ts";

/**
 * How the API shows a Worker: the script summary (services' `default_environment.script`, an upload's result, the
 * scripts list), its non-versioned settings, a version (`resources.bindings`, `resources.script_runtime`, where
 * `--containers-rollout=none` reads the container link back) and a deployment. Secrets' values never appear.
 */
/** A script as the API describes it (services' `default_environment.script`, an upload's result, the list). */
export function scriptSummary(script: WorkerScript) {
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

export function scriptSettings(script: WorkerScript) {
  return {
    logpush: script.settings.logpush,
    observability: script.settings.observability,
    tail_consumers: script.settings.tailConsumers,
    tags: script.settings.tags,
  };
}

export function versionResult(script: WorkerScript, version: WorkerVersion) {
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

export function deploymentResult(deployment: WorkerScript["deployments"][number]) {
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
