import * as z from "zod";
import { currentVersion, type WorkerScript } from "./accounts.ts";
import { envVarCount } from "./bindings.ts";
import { fail, ok, type Reply } from "./envelope.ts";
import { PLAN_LIMITS, type Plan } from "./plan-limits.ts";
import { tooManyEnvVars } from "./refusals.ts";
import type { Route } from "./router.ts";
import { versionWithBindings } from "./worker-versions.ts";
import { withScript } from "./workers-scripts.ts";

/**
 * A Worker's secrets: `secret_text` bindings of its current version. Putting or deleting one makes a new version and
 * deploys it (as Cloudflare does), and a put that would take the Worker past its plan's environment variables is
 * refused. `GET …/secrets` lists names and types only; a value never leaves the fake (nor is it logged).
 */
const SecretBody = z.object({ name: z.string().min(1), text: z.string(), type: z.literal("secret_text") }).strict();
/** `wrangler secret bulk`: a JSON merge patch of secrets by name, `null` deleting one. */
const BulkBody = z.object({ secrets: z.record(z.string(), SecretBody.nullable()) }).strict();

export function secretRoutes(): Route[] {
  const secrets = "/accounts/:account_id/workers/scripts/:script_name/secrets";
  return [
    {
      method: "GET",
      pattern: secrets,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) =>
          ok(
            (currentVersion(script)?.bindings ?? [])
              .filter((binding) => binding.type === "secret_text")
              .map((binding) => ({ name: binding.name, type: "secret_text" })),
          ),
        ),
    },
    {
      method: "PUT",
      pattern: secrets,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          let json: unknown;
          try {
            json = JSON.parse(request.body.toString("utf8"));
          } catch {
            request.violation("unreadable body", "the secret is not JSON");
            return fail(400, 10021, "could not parse the request body");
          }
          const body = SecretBody.safeParse(json);
          if (!body.success) {
            request.violation("unreadable body", z.prettifyError(body.error));
            return fail(400, 10021, z.prettifyError(body.error));
          }
          const { name, text } = body.data;
          const refused = putSecrets(script, request.account.plan, { [name]: { name, text } });
          return refused ?? ok({ name, type: "secret_text" });
        }),
    },
    {
      method: "PATCH",
      pattern: "/accounts/:account_id/workers/scripts/:script_name/secrets-bulk",
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          let json: unknown;
          try {
            json = JSON.parse(request.body.toString("utf8"));
          } catch {
            request.violation("unreadable body", "the secrets are not JSON");
            return fail(400, 10021, "could not parse the request body");
          }
          const body = BulkBody.safeParse(json);
          if (!body.success) {
            request.violation("unreadable body", z.prettifyError(body.error));
            return fail(400, 10021, z.prettifyError(body.error));
          }
          return putSecrets(script, request.account.plan, body.data.secrets) ?? ok(null);
        }),
    },
    {
      method: "DELETE",
      pattern: `${secrets}/:secret_name`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          const bindings = currentVersion(script)?.bindings ?? [];
          const name = request.params.secret_name!;
          if (!bindings.some((binding) => binding.name === name && binding.type === "secret_text")) {
            return fail(404, 10056, `Secret '${name}' not found.`);
          }
          versionWithBindings(
            script,
            bindings.filter((binding) => binding.name !== name),
            "api",
          );
          return ok(null);
        }),
    },
  ];
}

/** Sets (or, for `null`, removes) secrets in one new version; refused when the plan's variables would be exceeded. */
function putSecrets(
  script: WorkerScript,
  plan: Plan,
  secrets: Record<string, { name: string; text: string } | null>,
): Reply | undefined {
  const bindings = (currentVersion(script)?.bindings ?? []).filter((binding) => !(binding.name in secrets));
  for (const [name, secret] of Object.entries(secrets)) {
    if (secret) bindings.push({ name, type: "secret_text", text: secret.text });
  }
  const count = envVarCount(bindings);
  if (count > PLAN_LIMITS[plan].envVars) return tooManyEnvVars(plan, count);
  versionWithBindings(script, bindings, "api");
  return undefined;
}
