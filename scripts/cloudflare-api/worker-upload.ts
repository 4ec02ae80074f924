import { gzipSync } from "node:zlib";
import * as z from "zod";
import { multipartFields } from "../read-body.ts";
import type { WorkerModule } from "./accounts.ts";

/**
 * A Worker upload (`PUT …/workers/scripts/:name`, `POST …/versions`): a multipart form with a `metadata` part (JSON)
 * and one part per module. The metadata's fields and each binding type's fields are those wrangler 4.164's
 * createWorkerUploadForm sends and Cloudflare's script-upload schema documents; anything else is reported (the caller
 * records it as a violation).
 */
const BINDING_FIELDS: Record<string, string[]> = {
  inherit: [],
  plain_text: ["text"],
  json: ["json"],
  secret_text: ["text"],
  secret_key: ["algorithm", "format", "usages", "key_base64", "key_jwk"],
  kv_namespace: ["namespace_id", "raw"],
  send_email: ["destination_address", "allowed_destination_addresses", "allowed_sender_addresses"],
  durable_object_namespace: ["class_name", "script_name", "environment", "namespace_id"],
  workflow: ["workflow_name", "class_name", "script_name", "raw"],
  queue: ["queue_name", "delivery_delay", "raw"],
  r2_bucket: ["bucket_name", "jurisdiction", "raw"],
  d1: ["id", "internalEnv", "raw"],
  vectorize: ["index_name", "raw"],
  ai_search_namespace: ["namespace"],
  ai_search: ["instance_name"],
  agent_memory: ["namespace"],
  hyperdrive: ["id"],
  secrets_store_secret: ["store_id", "secret_name"],
  artifacts: ["namespace"],
  flagship: ["app_id"],
  ratelimit: ["namespace_id", "simple"],
  vpc_service: ["service_id"],
  vpc_network: ["tunnel_id", "network_id"],
  service: ["service", "environment", "entrypoint", "props", "cross_account_grant"],
  analytics_engine: ["dataset"],
  dispatch_namespace: ["namespace", "outbound"],
  mtls_certificate: ["certificate_id"],
  pipelines: ["stream", "pipeline"],
  worker_loader: [],
  logfwdr: ["destination"],
  wasm_module: ["part"],
  text_blob: ["part"],
  data_blob: ["part"],
  browser: ["raw"],
  ai: ["staging", "raw"],
  images: ["raw"],
  media: [],
  stream: [],
  version_metadata: [],
  assets: [],
};

const StringList = z.array(z.string());
const MigrationStep = z
  .object({
    new_classes: StringList.optional(),
    new_sqlite_classes: StringList.optional(),
    deleted_classes: StringList.optional(),
    renamed_classes: z.array(z.object({ from: z.string(), to: z.string() }).strict()).optional(),
    transferred_classes: z
      .array(z.object({ from: z.string(), from_script: z.string(), to: z.string() }).strict())
      .optional(),
  })
  .strict();
export type MigrationStep = z.infer<typeof MigrationStep>;

export const CodeUpdateStrategy = z.union([
  z.object({ mode: z.literal("immediate") }).strict(),
  z.object({ mode: z.literal("deferred"), max_delay: z.number().int().min(0).optional() }).strict(),
]);

const Metadata = z.object({
  main_module: z.string().optional(),
  body_part: z.string().optional(),
  bindings: z.array(z.looseObject({ name: z.string(), type: z.string() })).default([]),
  compatibility_date: z.string().optional(),
  compatibility_flags: StringList.default([]),
  migrations: z
    .object({ old_tag: z.string().optional(), new_tag: z.string().optional(), steps: z.array(MigrationStep) })
    .strict()
    .optional(),
  /** How running Durable Objects move to the new code: `{ mode: "immediate" }` or `{ mode: "deferred", max_delay }`. */
  code_update_strategy: CodeUpdateStrategy.optional(),
  exports: z.record(z.string(), z.unknown()).optional(),
  capnp_schema: z.string().optional(),
  keep_bindings: StringList.optional(),
  keep_assets: z.boolean().optional(),
  logpush: z.boolean().optional(),
  placement: z.record(z.string(), z.unknown()).optional(),
  tail_consumers: z.array(z.unknown()).optional(),
  streaming_tail_consumers: z.array(z.unknown()).optional(),
  limits: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.string().optional()).optional(),
  assets: z.record(z.string(), z.unknown()).optional(),
  observability: z.record(z.string(), z.unknown()).optional(),
  cache_options: z.record(z.string(), z.unknown()).optional(),
  package_dependencies: z.array(z.unknown()).optional(),
  containers: z.array(z.record(z.string(), z.unknown())).optional(),
  usage_model: z.string().optional(),
});
export type UploadMetadata = z.infer<typeof Metadata>;

export interface ParsedUpload {
  metadata: UploadMetadata;
  /** The main module first, then the others in the order uploaded. */
  modules: WorkerModule[];
  /** Uncompressed and gzip bytes of the modules (source maps left out), as Cloudflare measures a Worker's size. */
  size: { bytes: number; gzipBytes: number };
  /** Metadata fields and binding types or fields Cloudflare's schema does not have. */
  unknown: { problem: "unknown field" | "unknown binding type"; detail: string }[];
}

export function parseUpload(contentType: string | undefined, body: Buffer): ParsedUpload | { error: string } {
  if (!contentType?.startsWith("multipart/form-data")) return { error: "the upload is not multipart/form-data" };
  const fields = multipartFields(contentType, body);
  const rawMetadata = fields.metadata;
  if (typeof rawMetadata !== "string") return { error: "the upload has no metadata part" };
  let json: unknown;
  try {
    json = JSON.parse(rawMetadata);
  } catch {
    return { error: "the metadata part is not JSON" };
  }
  const parsed = Metadata.safeParse(json);
  if (!parsed.success) return { error: `metadata: ${z.prettifyError(parsed.error)}` };
  const metadata = parsed.data;
  const unknown: ParsedUpload["unknown"] = [];
  for (const key of Object.keys(json as object)) {
    if (!(key in Metadata.shape)) unknown.push({ problem: "unknown field", detail: `metadata.${key}` });
  }
  metadata.bindings.forEach((binding, index) => {
    const known = BINDING_FIELDS[binding.type];
    if (!known) {
      unknown.push({ problem: "unknown binding type", detail: `${binding.type} (binding ${binding.name})` });
      return;
    }
    for (const key of Object.keys(binding)) {
      if (key !== "name" && key !== "type" && !known.includes(key)) {
        unknown.push({ problem: "unknown field", detail: `metadata.bindings[${index}].${key} (${binding.type})` });
      }
    }
  });
  const modules: WorkerModule[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (name === "metadata" || typeof value === "string") continue;
    modules.push({ name, contentType: value.type, bytes: value.bytes });
  }
  const main = metadata.main_module ?? metadata.body_part;
  if (!main || !modules.some((module) => module.name === main)) {
    return { error: `the main module ${main ?? "(none named)"} is not among the uploaded parts` };
  }
  modules.sort((a, b) => Number(b.name === main) - Number(a.name === main));
  // Source maps are kept beside the code but are not part of the Worker's size (Cloudflare's changelog of 2025-03-25:
  // "source maps do not affect upload speed, bundle size, or cold starts"; they have their own 15 MB gzip limit).
  const all = Buffer.concat(
    modules.filter((module) => module.contentType !== "application/source-map").map((module) => module.bytes),
  );
  return { metadata, modules, size: { bytes: all.byteLength, gzipBytes: gzipSync(all).byteLength }, unknown };
}
