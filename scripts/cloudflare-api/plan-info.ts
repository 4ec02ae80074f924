import { ok } from "./envelope.ts";
import type { Route } from "./router.ts";

/**
 * What tells a deploy script an account's plan. Cloudflare has no "which Workers plan" field; these are the answers
 * that say it:
 * - `GET /accounts/:id/subscriptions` (Billing Read permission; wrangler login's OAuth scopes have no billing scope,
 *   so its token is refused with 403/10000): a Workers Paid account has a subscription whose rate plan is "Workers
 *   Paid" ($5 a month); a Free one has none.
 * - `GET /accounts/:id/containers/me` (containers.ts): 200 on Paid, the containers API's 401 "requires the Workers
 *   Paid plan" on Free; readable with wrangler's OAuth token (scope containers:write).
 * - `GET /accounts/:id/r2/buckets` (r2.ts): 403/10042 when R2 is not switched on.
 * - `GET /accounts/:id/workers/account-settings`: the account's Workers defaults (no plan in it), served because
 *   scripts read it.
 * Shapes as in Cloudflare's API reference (Accounts › Subscriptions, Workers › Account Settings).
 */
export function planRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/accounts/:account_id/subscriptions",
      scope: "billing",
      handle: (request) => {
        if (request.account.plan === "free") return ok([]);
        const start = new Date();
        start.setUTCDate(1);
        start.setUTCHours(0, 0, 0, 0);
        const end = new Date(start);
        end.setUTCMonth(end.getUTCMonth() + 1);
        return ok([
          {
            id: `${request.account.id.slice(0, 24)}workers`,
            currency: "USD",
            current_period_start: start.toISOString(),
            current_period_end: end.toISOString(),
            frequency: "monthly",
            price: 5,
            rate_plan: {
              id: "workers_paid",
              currency: "USD",
              externally_managed: false,
              is_contract: false,
              public_name: "Workers Paid",
              scope: "account",
              sets: [],
            },
            state: "Paid",
          },
        ]);
      },
    },
    {
      method: "GET",
      pattern: "/accounts/:account_id/workers/account-settings",
      scope: "account",
      handle: () => ok({ default_usage_model: "standard", green_compute: false }),
    },
  ];
}
