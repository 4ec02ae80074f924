import { randomBytes, randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import type { Plan, SizeRule } from "./plan-limits.ts";

/**
 * The state of each fake account: its plan and switches, and what wrangler created in it (Workers with their
 * versions and deployments, Durable Object namespaces, D1 databases with a real SQLite file each, KV namespaces, R2
 * buckets, container applications). Nothing here knows HTTP; the handlers in the other files read and change it.
 */
export interface AccountOptions {
  id: string;
  name?: string;
  plan: Plan;
  /** Whether R2 is switched on for the account (Cloudflare asks for it in the dashboard, once). */
  r2: boolean;
  /** The account's workers.dev subdomain (`<subdomain>.workers.dev`); none: not registered yet. */
  subdomain?: string;
  /** Which Worker size limit applies (default: Cloudflare's current one, 64 MiB uncompressed). */
  sizeRule?: SizeRule;
}

export interface Binding {
  name: string;
  type: string;
  [field: string]: unknown;
}

export interface WorkerModule {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface WorkerVersion {
  id: string;
  number: number;
  createdOn: string;
  /** "wrangler" for uploads, "api" for versions made by secret changes. */
  source: string;
  annotations: Record<string, string>;
  mainModule: string;
  modules: WorkerModule[];
  compatibilityDate: string | undefined;
  compatibilityFlags: string[];
  bindings: Binding[];
  /** The upload's `containers` metadata (`[{ class_name }]`), read back by `--containers-rollout=none`. */
  containers: unknown[] | undefined;
  placement: unknown;
  limits: unknown;
  /** Uncompressed and gzip bytes of the modules, as Cloudflare measures an upload. */
  size: { bytes: number; gzipBytes: number };
}

export interface Deployment {
  id: string;
  createdOn: string;
  source: string;
  strategy: "percentage";
  versions: { version_id: string; percentage: number }[];
  annotations: Record<string, string>;
}

export interface WorkerScript {
  name: string;
  /** Cloudflare's script tag (32 hex digits). */
  tag: string;
  createdOn: string;
  modifiedOn: string;
  versions: WorkerVersion[];
  deployments: Deployment[];
  /** The last Durable Object migration tag applied; what `GET …/workers/services/:name` reports as `migration_tag`. */
  migrationTag: string | undefined;
  /** Every migration applied, in order, as sent (for assertions). */
  migrationsApplied: { oldTag: string | undefined; newTag: string | undefined; steps: unknown[] }[];
  workersDev: { enabled: boolean; previewsEnabled: boolean };
  settings: { logpush: boolean; tailConsumers: unknown[]; observability: unknown; tags: string[] };
  lastDeployedFrom: "wrangler" | "api";
}

export interface DurableObjectNamespace {
  id: string;
  name: string;
  script: string;
  className: string;
  useSqlite: boolean;
}

export interface D1Database {
  uuid: string;
  name: string;
  createdAt: string;
  sqlite: DatabaseSync;
}

export interface KvNamespace {
  id: string;
  title: string;
  keys: Map<string, { value: Uint8Array; metadata?: unknown; expiration?: number }>;
}

export interface R2Bucket {
  name: string;
  creationDate: string;
  location: string;
  storageClass: string;
  objects: Map<string, { bytes: Uint8Array; contentType: string; uploaded: string }>;
}

export interface ContainerApplication {
  id: string;
  name: string;
  createdAt: string;
  /** Raised by each rollout of a new configuration. */
  version: number;
  body: Record<string, unknown>;
}

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  r2: boolean;
  subdomain: string | undefined;
  sizeRule: SizeRule;
  scripts: Map<string, WorkerScript>;
  durableObjects: Map<string, DurableObjectNamespace>;
  d1: Map<string, D1Database>;
  kv: Map<string, KvNamespace>;
  buckets: Map<string, R2Bucket>;
  containers: Map<string, ContainerApplication>;
}

export function createAccount(options: AccountOptions): Account {
  return {
    id: options.id,
    name: options.name ?? `Account ${options.id}`,
    plan: options.plan,
    r2: options.r2,
    subdomain: options.subdomain,
    sizeRule: options.sizeRule ?? "uncompressed",
    scripts: new Map(),
    durableObjects: new Map(),
    d1: new Map(),
    kv: new Map(),
    buckets: new Map(),
    containers: new Map(),
  };
}

/** Closes what an account holds open (its D1 databases' SQLite connections). */
export function closeAccount(account: Account): void {
  for (const database of account.d1.values()) database.sqlite.close();
}

/** 32 hex digits, the shape of Cloudflare's account, script-tag, KV-namespace and DO-namespace ids. */
export function hexId(): string {
  return randomBytes(16).toString("hex");
}

export function uuid(): string {
  return randomUUID();
}

export function now(): string {
  return new Date().toISOString();
}

/** The version the script's latest deployment serves (a fully rolled-out deployment has one). */
export function currentVersion(script: WorkerScript): WorkerVersion | undefined {
  const deployment = script.deployments.at(-1);
  const versionId = deployment?.versions[0]?.version_id;
  return script.versions.find((version) => version.id === versionId) ?? script.versions.at(-1);
}

/** A binding as the API shows it: a secret's value never leaves Cloudflare. */
export function publicBinding(binding: Binding): Binding {
  return binding.type === "secret_text" ? { name: binding.name, type: binding.type } : binding;
}
