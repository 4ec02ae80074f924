import type { IncomingHttpHeaders } from "node:http";
import { fail, type Reply } from "./envelope.ts";
import type { Route } from "./router.ts";
import type { CloudflareState } from "./state.ts";

/**
 * Cloudflare's answers to a request it will not authenticate, in its words:
 * - no credentials at all: 400, code 9106 "Missing X-Auth-Key, X-Auth-Email or Authorization headers";
 * - a token it does not know, on /user/tokens/verify: 401, code 1000 "Invalid API Token";
 * - a token it does not know elsewhere, or an account the token cannot use: 403, code 10000 "Authentication error"
 *   (the answer wrangler turns into its "Are you missing the … permission?" hint).
 * The OAuth token (`oauthToken`, what `wrangler login` leaves and `wrangler auth token` prints) is accepted with
 * wrangler's default scopes: everything here but "billing" endpoints, which it gets 403/10000 for.
 * Returns undefined when the request may go on.
 */
export function refuseAuth(
  state: CloudflareState,
  route: Route,
  headers: IncomingHttpHeaders,
  accountId: string | undefined,
): Reply | undefined {
  const authorization = headers.authorization;
  if (!authorization && !headers["x-auth-key"]) {
    return fail(400, 9106, "Missing X-Auth-Key, X-Auth-Email or Authorization headers");
  }
  const token = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim();
  const oauth = state.oauthToken !== undefined && token === state.oauthToken;
  if (token !== state.token && !oauth) {
    return route.scope === "verify" ? fail(401, 1000, "Invalid API Token") : fail(403, 10000, "Authentication error");
  }
  // An OAuth token is not an API token: /user/tokens/verify does not know it, and it has no billing scope.
  if (oauth && (route.scope === "verify" || route.scope === "billing")) {
    return route.scope === "verify" ? fail(401, 1000, "Invalid API Token") : fail(403, 10000, "Authentication error");
  }
  if (
    route.scope !== "user" &&
    route.scope !== "verify" &&
    (accountId === undefined || !state.accounts.has(accountId))
  ) {
    return fail(403, 10000, "Authentication error");
  }
  return undefined;
}
