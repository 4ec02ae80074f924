import type { Account, Binding, DurableObjectNamespace, WorkerVersion } from "./accounts.ts";
import { namespaceFor } from "./durable-objects.ts";
import { fail, type Reply } from "./envelope.ts";
import { PLAN_LIMITS } from "./plan-limits.ts";
import {
  d1BindingInvalid,
  durableObjectClassUnknown,
  kvNamespaceNotFound,
  r2BucketNotFound,
  tooManyEnvVars,
} from "./refusals.ts";

/**
 * The bindings a new version gets: the upload's, with `{ type: "inherit" }` replaced by the previous version's binding
 * of that name (wrangler sends it for a provisioned D1/KV/R2 binding that has no id in its config, and asks for
 * `bindings_inherit=strict`), and with the previous version's bindings of the types in `keep_bindings` kept
 * (`wrangler deploy` keeps secrets that way). Each resource a binding names must exist in the account.
 */
export function resolveBindings(
  account: Account,
  scriptName: string,
  previous: WorkerVersion | undefined,
  uploaded: Binding[],
  keepTypes: string[],
  namespaces: Map<string, DurableObjectNamespace>,
): Binding[] | Reply {
  const resolved: Binding[] = [];
  for (const binding of uploaded) {
    if (binding.type !== "inherit") {
      resolved.push(binding);
      continue;
    }
    const inherited = previous?.bindings.find((candidate) => candidate.name === binding.name);
    // No real answer for a strict inherit with nothing to inherit was found: 10021 (validation), this fake's words.
    if (!inherited) {
      return fail(
        400,
        10021,
        `binding ${binding.name} of type inherit could not be inherited: the previous version has no binding of that name`,
      );
    }
    resolved.push(inherited);
  }
  const names = new Set(resolved.map((binding) => binding.name));
  for (const binding of previous?.bindings ?? []) {
    if (keepTypes.includes(binding.type) && !names.has(binding.name)) resolved.push(binding);
  }
  for (const binding of resolved) {
    const refused = checkResource(account, scriptName, binding, namespaces);
    if (refused) return refused;
  }
  // Cloudflare fills in a Durable Object binding's namespace id (wrangler reads it back to link a container).
  for (const [index, binding] of resolved.entries()) {
    if (binding.type !== "durable_object_namespace") continue;
    resolved[index] = { ...binding, namespace_id: namespaceFor(namespaces, scriptName, binding)!.id };
  }
  const envVars = envVarCount(resolved);
  if (envVars > PLAN_LIMITS[account.plan].envVars) return tooManyEnvVars(account.plan, envVars);
  return resolved;
}

function checkResource(
  account: Account,
  scriptName: string,
  binding: Binding,
  namespaces: Map<string, DurableObjectNamespace>,
): Reply | undefined {
  switch (binding.type) {
    case "kv_namespace":
      return account.kv.has(String(binding.namespace_id))
        ? undefined
        : kvNamespaceNotFound(String(binding.namespace_id));
    case "d1":
      return account.d1.has(String(binding.id)) ? undefined : d1BindingInvalid(binding.name);
    case "r2_bucket":
      return account.buckets.has(String(binding.bucket_name))
        ? undefined
        : r2BucketNotFound(String(binding.bucket_name));
    case "durable_object_namespace":
      return namespaceFor(namespaces, scriptName, binding)
        ? undefined
        : durableObjectClassUnknown(String(binding.class_name));
    default:
      return undefined;
  }
}

/** How many environment variables (text, JSON, secrets) a set of bindings holds, for a `secret put`'s check. */
export function envVarCount(bindings: Binding[]): number {
  return bindings.filter((binding) => ["plain_text", "json", "secret_text"].includes(binding.type)).length;
}
