/**
 * The limits Cloudflare holds an account to, by Workers plan. Source: the Workers limits page
 * (https://developers.cloudflare.com/workers/platform/limits/, as stored in November 2026) unless a line says
 * otherwise. CPU time and subrequests are runtime limits, not checked by the API; they are here so that a deploy script
 * can print what the plan allows.
 */
export type Plan = "free" | "paid";

const MIB = 1024 * 1024;

export interface PlanLimits {
  /** Environment variables per Worker: text and JSON variables and secrets together. */
  envVars: number;
  cpuMsPerInvocation: number;
  subrequestsPerInvocation: number;
  /**
   * The Worker's size: since 4 September 2026 one limit of 64 MiB on the uncompressed modules on every plan
   * (Cloudflare's changelog "Deploy larger Workers", cloudflare-docs#33241; wrangler's bundle reporter compares the
   * uncompressed size with 64 MiB since workers-sdk#14001, as wrangler 4.164 does).
   */
  uncompressedBytes: number;
  /** The gzip limit Cloudflare enforced until 4 September 2026 (3 MB Free, 10 MB Paid); see `SizeRule`. */
  legacyGzipBytes: number;
  /** Durable Object classes with the key-value backend (`new_classes`): Paid only; SQLite-backed ones on both. */
  keyValueDurableObjects: boolean;
  /** Containers: Paid only. */
  containers: boolean;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    envVars: 64,
    cpuMsPerInvocation: 10,
    subrequestsPerInvocation: 50,
    uncompressedBytes: 64 * MIB,
    legacyGzipBytes: 3 * MIB,
    keyValueDurableObjects: false,
    containers: false,
  },
  paid: {
    envVars: 128,
    cpuMsPerInvocation: 300_000,
    subrequestsPerInvocation: 10_000,
    uncompressedBytes: 64 * MIB,
    legacyGzipBytes: 10 * MIB,
    keyValueDurableObjects: true,
    containers: true,
  },
};

/**
 * Which size rule an account is held to: "uncompressed" is Cloudflare's since 4 September 2026; "gzip" plays the
 * earlier one (3 MB gzip on Free, 10 MB on Paid), which older documents and projects still describe.
 */
export type SizeRule = "uncompressed" | "gzip";

/**
 * D1's per-statement limits (https://developers.cloudflare.com/d1/platform/limits/): 100,000 bytes of SQL
 * (SQLITE_LIMIT_SQL_LENGTH, confirmed in cloudflare/workerd#3049) and 100 bound parameters.
 */
export const D1_LIMITS = { statementBytes: 100_000, boundParameters: 100 } as const;
