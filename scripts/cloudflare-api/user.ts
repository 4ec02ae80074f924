import { ok, page } from "./envelope.ts";
import type { Route } from "./router.ts";
import type { CloudflareState } from "./state.ts";

/**
 * The user and token endpoints `wrangler whoami` and every account lookup call: the token's verification, the user,
 * the accounts the token can use and the memberships. Shapes as in workers-sdk's own test handlers
 * (packages/wrangler/src/__tests__/helpers/msw/handlers/user.ts) and Cloudflare's API reference.
 */
const USER_ID = "7c5dae5552338874e5053f2534d2767a";
const TOKEN_ID = "ed17574386854bf78a67040be0a770b0";
const CREATED = "2026-01-01T00:00:00Z";

export function userRoutes(state: CloudflareState): Route[] {
  const accounts = () =>
    [...state.accounts.values()].map((account) => ({
      id: account.id,
      name: account.name,
      type: "standard",
      settings: { enforce_twofactor: false, api_access_enabled: null, access_approval_expiry: null },
      created_on: CREATED,
    }));
  const verified = { id: TOKEN_ID, status: "active" };
  return [
    {
      method: "GET",
      pattern: "/user/tokens/verify",
      scope: "verify",
      handle: () => ({
        status: 200,
        body: {
          success: true,
          errors: [],
          messages: [{ code: 10000, message: "This API Token is valid and active", type: null }],
          result: verified,
        },
      }),
    },
    {
      // An account-owned token is verified here instead (Cloudflare's account API tokens).
      method: "GET",
      pattern: "/accounts/:account_id/tokens/verify",
      scope: "account",
      handle: () => ok(verified),
    },
    {
      method: "GET",
      pattern: "/user",
      scope: "user",
      handle: () =>
        ok({
          id: USER_ID,
          email: "user@example.com",
          first_name: "Fake",
          last_name: "User",
          username: "fakeuser",
          telephone: null,
          country: null,
          zipcode: null,
          created_on: CREATED,
          modified_on: CREATED,
          two_factor_authentication_enabled: false,
          suspended: false,
        }),
    },
    { method: "GET", pattern: "/accounts", scope: "user", handle: (request) => page(accounts(), request.query) },
    {
      method: "GET",
      pattern: "/memberships",
      scope: "user",
      handle: (request) =>
        page(
          accounts().map((account, index) => ({
            id: `membership-${index + 1}`,
            account: { id: account.id, name: account.name },
            roles: ["Super Administrator - All Privileges"],
            status: "accepted",
          })),
          request.query,
        ),
    },
  ];
}
