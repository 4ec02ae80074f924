/**
 * What one invocation may spend on each Workers plan (WORKERS_PLAN names the deployment's). From Cloudflare's Workers
 * limits page (https://developers.cloudflare.com/workers/platform/limits/#subrequests, read 2026-11-28): "A subrequest
 * is any request a Worker makes using the Fetch API or to Cloudflare services like R2, KV, or D1"; Free allows 50
 * subrequests per invocation and 1,000 to internal services, Paid 10,000 (up to 10M) with internal services matching
 * it; and the changelog of 2026-02-11: "Workers on the free plan remain limited to 50 external subrequests and 1000
 * subrequests to Cloudflare services per invocation". A Durable Object is a Worker for these limits, and each event
 * delivered to it (a request, an RPC call, an alarm) tops its limits up (workerd's `LimitEnforcer::topUpActor`; the
 * Durable Objects limits page says so of CPU). An object's own SQLite is not a subrequest: it runs in the object's
 * thread.
 */

const PLANS = ["free", "paid"] as const;
export type Plan = (typeof PLANS)[number];

export interface InvocationLimits {
  /** Requests to the internet through `fetch` (Telegram, the model APIs, web pages). */
  external: number;
  /** Requests to Cloudflare's services through bindings (KV, D1, R2, Durable Objects, Workers AI). */
  services: number;
  /**
   * Both together. Free's are held to 50 together: the page's first row reads as one limit of 50 for every kind, the
   * changelog as two pools (50 and 1,000); 50 together is within both readings, at the cost of a fresh invocation a
   * little sooner. Paid counts them against one configured limit.
   */
  total: number;
  /** CPU milliseconds (Free: 10; Paid: 30 s by default, up to 5 minutes). */
  cpuMs: number;
}

export const PLAN_LIMITS: Readonly<Record<Plan, InvocationLimits>> = {
  free: { external: 50, services: 1_000, total: 50, cpuMs: 10 },
  paid: { external: 10_000, services: 10_000, total: 10_000, cpuMs: 30_000 },
};
