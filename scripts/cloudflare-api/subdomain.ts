import * as z from "zod";
import { fail, ok } from "./envelope.ts";
import type { Route } from "./router.ts";
import { withScript } from "./workers-scripts.ts";

/**
 * workers.dev: the account's subdomain (`<subdomain>.workers.dev`) and whether each Worker is served there. A new
 * Worker is not, until `wrangler deploy` switches it on (`POST …/scripts/:name/subdomain`).
 */
const Toggle = z.object({ enabled: z.boolean(), previews_enabled: z.boolean().optional() }).strict();

export function subdomainRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/accounts/:account_id/workers/subdomain",
      scope: "account",
      handle: (request) =>
        request.account.subdomain === undefined
          ? // wrangler reads code 10007 as "no workers.dev subdomain yet" and offers to register one; words this fake's.
            fail(404, 10007, "This account does not have a workers.dev subdomain registered.")
          : ok({ subdomain: request.account.subdomain }),
    },
    {
      method: "PUT",
      pattern: "/accounts/:account_id/workers/subdomain",
      scope: "account",
      handle: (request) => {
        const body = z.object({ subdomain: z.string().min(1) }).safeParse(JSON.parse(request.body.toString() || "{}"));
        if (!body.success) return fail(400, 10021, z.prettifyError(body.error));
        request.account.subdomain = body.data.subdomain;
        return ok({ subdomain: body.data.subdomain });
      },
    },
    {
      // The Workers API's view of a Worker (`/workers/workers/:name`), which `wrangler deploy` reads for workers.dev.
      method: "GET",
      pattern: "/accounts/:account_id/workers/workers/:script_name",
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          const subdomain = request.account.subdomain;
          return ok({
            id: script.tag,
            name: script.name,
            created_on: script.createdOn,
            updated_on: script.modifiedOn,
            logpush: script.settings.logpush,
            observability: script.settings.observability,
            tags: script.settings.tags,
            tail_consumers: script.settings.tailConsumers,
            subdomain: {
              enabled: script.workersDev.enabled,
              previews_enabled: script.workersDev.previewsEnabled,
              ...(script.workersDev.enabled && subdomain
                ? { url: `https://${script.name}.${subdomain}.workers.dev` }
                : {}),
            },
          });
        }),
    },
    {
      method: "GET",
      pattern: "/accounts/:account_id/workers/scripts/:script_name/subdomain",
      scope: "account",
      handle: (request) =>
        withScript(request, (script) =>
          ok({ enabled: script.workersDev.enabled, previews_enabled: script.workersDev.previewsEnabled }),
        ),
    },
    {
      method: "POST",
      pattern: "/accounts/:account_id/workers/scripts/:script_name/subdomain",
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          const body = Toggle.safeParse(JSON.parse(request.body.toString() || "{}"));
          if (!body.success) return fail(400, 10021, z.prettifyError(body.error));
          script.workersDev = {
            enabled: body.data.enabled,
            // As the API does: previews follow workers.dev unless said otherwise.
            previewsEnabled: body.data.previews_enabled ?? body.data.enabled,
          };
          return ok({ enabled: script.workersDev.enabled, previews_enabled: script.workersDev.previewsEnabled });
        }),
    },
  ];
}
