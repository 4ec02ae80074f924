import { fail, type Reply } from "./envelope.ts";
import { PLAN_LIMITS, type Plan } from "./plan-limits.ts";

/**
 * Cloudflare's refusals, in its codes and words. Each says where its text comes from; where no real answer could be
 * found, the code is the API's documented one and the words are this fake's, and the comment says so.
 */

const UPLOAD_ERRORS_DOC =
  "Refer to the Workers documentation (https://developers.cloudflare.com/workers/observability/errors/#errors-on-worker-upload) for more details.";

/**
 * A Worker over the size limit: code 10027 ("Script body was too large" in the API schema). Words as reported in
 * cloudflare/workers-sdk#7184 and #9101 ("Your Worker exceeded the size limit of 1 MiB. Refer to …"); the Free
 * plan's gzip refusal as in AmanVarshney01/create-better-t-stack#751 ("… Please upgrade to a paid plan to deploy
 * Workers up to 10 MiB").
 */
export function workerTooLarge(limitMib: number, upgradeTo?: number): Reply {
  const upgrade =
    upgradeTo === undefined ? "" : ` Please upgrade to a paid plan to deploy Workers up to ${upgradeTo} MiB.`;
  return fail(400, 10027, `Your Worker exceeded the size limit of ${limitMib} MiB.${upgrade} ${UPLOAD_ERRORS_DOC}`);
}

/**
 * More environment variables than the plan allows (64 Free, 128 Paid: text, JSON and secrets together). No real
 * answer was found: 10021 is the API's code for "script content failed validation checks", the words are this fake's.
 */
export function tooManyEnvVars(plan: Plan, count: number): Reply {
  const limit = PLAN_LIMITS[plan].envVars;
  const name = plan === "free" ? "Workers Free" : "Workers Paid";
  return fail(
    400,
    10021,
    `Your Worker has ${count} environment variables (text, JSON and secrets together), more than the ${limit} the ${name} plan allows. See https://developers.cloudflare.com/workers/platform/limits/#environment-variables`,
  );
}

/** Key-value Durable Objects on Free: code 10097, words as in cloudflare/workers-chat-demo#43 (wrangler 4.24). */
export function keyValueDurableObjectsOnFree(): Reply {
  return fail(
    400,
    10097,
    "In order to use Durable Objects with a free plan, you must create a namespace using a `new_sqlite_classes` migration.",
  );
}

/** A migration whose old tag is not the script's: code 10079, words as in cloudflare/workers-sdk#6953. */
export function migrationTagMismatch(current: string | undefined): Reply {
  return fail(400, 10079, `Migration tag precondition failed; current tag is '${current ?? ""}'`);
}

/**
 * A migration that creates a class the script already has (10074, cloudflare/workers-sdk#15741 and
 * iterate/iterate#1652 name the code for "recreating a live class"; the words are this fake's), or that renames,
 * transfers or deletes one it does not have (code and words this fake's choice, after 10074).
 */
export function migrationConflict(message: string): Reply {
  return fail(400, 10074, message);
}

/**
 * A Durable Object binding to a class no migration created: code 10061, words as quoted from real deploys (e.g. "Cannot
 * create binding for class 'WorkflowExecutorDO' because it is not currently configured to implement Durable Objects.
 * Configure a migration in your Wrangler configuration to add this class. [code: 10061]").
 */
export function durableObjectClassUnknown(className: string): Reply {
  return fail(
    400,
    10061,
    `Cannot create binding for class '${className}' because it is not currently configured to implement Durable Objects. Configure a migration in your Wrangler configuration to add this class.`,
  );
}

/**
 * R2 not switched on for the account: 403, code 10042, "Please enable R2 through the Cloudflare Dashboard."
 * (cloudflare/workers-sdk#2877; the 403 as a deploy button's notes record it, which is why wrangler treats it as a
 * permission problem and skips provisioning).
 */
export function r2NotEnabled(): Reply {
  return fail(403, 10042, "Please enable R2 through the Cloudflare Dashboard.");
}

/** An upload bound to a bucket that does not exist: code 10085, words from workers-sdk's remote-bindings e2e test. */
export function r2BucketNotFound(name: string): Reply {
  return fail(400, 10085, `R2 bucket '${name}' not found. Please use a different name and try again.`);
}

/**
 * Containers on Free: the containers API answers 401 with its own shape (not the v4 envelope), as recorded by a
 * client's test of `GET /accounts/:id/containers/me` and by `wrangler containers list` on a Free account.
 */
export function containersNeedPaid(): Reply {
  return {
    status: 401,
    body: {
      error:
        "Unauthorized: You do not have access to Cloudflare Containers. Deploying containers requires the Workers Paid plan. Upgrade your plan at https://dash.cloudflare.com/?to=/:account/workers/plans",
    },
  };
}

/** D1: a statement over 100,000 bytes: 400, code 7500, "statement too long: SQLITE_TOOBIG" (workers-sdk#6347). */
export function d1StatementTooLong(): Reply {
  return fail(400, 7500, "statement too long: SQLITE_TOOBIG");
}

/**
 * D1: more than 100 bound parameters: 400, code 7500, "too many SQL variables at offset N: SQLITE_ERROR"
 * (nerdfolio/cloudflare-helpers#5, a real answer of the /query endpoint; cloudflare-docs#31047).
 */
export function d1TooManyVariables(offset: number): Reply {
  return fail(400, 7500, `too many SQL variables at offset ${offset}: SQLITE_ERROR`);
}

/** Any other SQLite error, as D1 words them: the message, ": ", the result code's name (code 7500). */
export function d1SqliteError(message: string, codeName: string): Reply {
  return fail(400, 7500, `${message}: ${codeName}`);
}

/** An upload bound to a KV namespace id the account does not have: code 10041, words as in many real deploy logs. */
export function kvNamespaceNotFound(id: string): Reply {
  return fail(400, 10041, `KV namespace '${id}' not found.`);
}

/**
 * An upload bound to a D1 id the account does not have: code 10021 with the note wrangler 4.164 matches word for word
 * to say "You must use a real database in the database_id configuration" (its deploy code).
 */
export function d1BindingInvalid(binding: string): Reply {
  return fail(400, 10021, `binding ${binding} of type d1 must have a valid \`id\` specified`);
}

/**
 * A Worker upload that links Durable Object classes to containers (`containers` in its metadata, which
 * `wrangler deploy --containers-rollout=none` still sends) on Free. Inferred, no real answer was found: 10075 is the
 * API schema's code for "Requires a Workers Paid plan", the words are the containers API's.
 */
export function containersNeedPaidOnUpload(): Reply {
  return fail(
    400,
    10075,
    "You do not have access to Cloudflare Containers. Deploying containers requires the Workers Paid plan.",
  );
}
