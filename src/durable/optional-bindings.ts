import type { Env } from "../env.ts";
import type { VectorIndex } from "../tools/semantic-index.ts";

/**
 * The bindings a deployment may leave out, looked up without importing the runtime's classes, so that /health (and its
 * Node tests) can read them: the rest of the ports are in bindings.ts.
 */

/**
 * The MEDIA bucket, when the binding exists. Without it (R2 not switched on for the account) files are not kept: they
 * are read from Telegram again when a turn needs them.
 */
export function mediaBucket(env: Env): R2Bucket | undefined {
  const bucket: R2Bucket | undefined = env.MEDIA;
  return bucket;
}

/** The binding's name in wrangler.toml (commented out there: the index is optional). */
const VECTORS_BINDING = "HISTORY_VECTORS";

/**
 * The HISTORY_VECTORS binding, if one is bound. The binding is optional, so it is not in the generated `Env` type: it
 * is looked up by name and checked for the methods used.
 */
export function historyVectors(env: Env): VectorIndex | undefined {
  const binding: unknown = Reflect.get(env, VECTORS_BINDING);
  return isVectorIndex(binding) ? binding : undefined;
}

function isVectorIndex(value: unknown): value is VectorIndex {
  if (typeof value !== "object" || value === null) return false;
  return ["upsert", "query", "deleteByIds"].every((method) => typeof Reflect.get(value, method) === "function");
}
