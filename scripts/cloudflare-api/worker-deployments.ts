import * as z from "zod";
import { fail, ok } from "./envelope.ts";
import type { Route } from "./router.ts";
import { CodeUpdateStrategy } from "./worker-upload.ts";
import { deploy } from "./worker-versions.ts";
import { deploymentResult, versionResult } from "./worker-views.ts";
import { withScript } from "./workers-scripts.ts";

/**
 * A Worker's versions and deployments: what `wrangler deploy` reads before uploading (the latest deployment, and with
 * `--containers-rollout=none` the versions it serves) and, on the versions path (an existing Worker without
 * migrations or containers), the deployment it creates for the version it uploaded. Lists are newest first; a
 * deployment's percentages must add up to 100 and name known versions (10210, words as real answers quote them).
 */
const SCRIPT = "/accounts/:account_id/workers/scripts/:script_name";

const DeploymentBody = z.strictObject({
  strategy: z.literal("percentage"),
  versions: z.array(z.object({ version_id: z.string(), percentage: z.number() })).min(1),
  annotations: z.record(z.string(), z.string().optional()).optional(),
  code_update_strategy: CodeUpdateStrategy.optional(),
});

export function deploymentRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: `${SCRIPT}/versions`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) =>
          ok({ items: [...script.versions].reverse().map((v) => versionResult(script, v)) }),
        ),
    },
    {
      method: "GET",
      pattern: `${SCRIPT}/versions/:version_id`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          const version = script.versions.find((candidate) => candidate.id === request.params.version_id);
          return version
            ? ok(versionResult(script, version))
            : fail(404, 10071, "The requested Worker version could not be found");
        }),
    },
    {
      method: "GET",
      pattern: `${SCRIPT}/deployments`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) =>
          ok({ deployments: [...script.deployments].reverse().map((deployment) => deploymentResult(deployment)) }),
        ),
    },
    {
      method: "POST",
      pattern: `${SCRIPT}/deployments`,
      scope: "account",
      handle: (request) =>
        withScript(request, (script) => {
          let json: unknown;
          try {
            json = JSON.parse(request.body.toString("utf8"));
          } catch {
            json = undefined;
          }
          const body = DeploymentBody.safeParse(json);
          if (!body.success) {
            request.violation("unreadable body", z.prettifyError(body.error));
            return fail(400, 10021, z.prettifyError(body.error));
          }
          const total = body.data.versions.reduce((sum, version) => sum + version.percentage, 0);
          if (total !== 100) return fail(400, 10210, "Invalid deployment: percentages must sum to 100");
          const unknown = body.data.versions.find((v) => !script.versions.some((known) => known.id === v.version_id));
          if (unknown) return fail(400, 10210, `Invalid deployment: Version not found: ${unknown.version_id}`);
          const deployment = deploy(
            script,
            body.data.versions[0]!.version_id,
            "wrangler",
            Object.fromEntries(
              Object.entries(body.data.annotations ?? {}).filter((entry): entry is [string, string] => !!entry[1]),
            ),
          );
          deployment.versions = body.data.versions;
          return ok(deploymentResult(deployment));
        }),
    },
  ];
}
