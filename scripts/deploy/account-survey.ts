import { spawnSync } from "node:child_process";
import { accountApi, type CloudflareAccount } from "./cloudflare-account.ts";

/** What the account has and allows, found out before anything is changed. */
export interface AccountSurvey {
  plan: { name: "free" | "paid"; how: string };
  r2: boolean;
  /** The Worker is live already: this deploy is an upgrade. */
  workerExists: boolean;
  /** Names of the secrets the live Worker has (never their values). */
  secretNames: readonly string[];
  /** The D1 database of the config is there already (migrations go before the upload then). */
  databaseExists: boolean;
  /** A KV namespace a failed first deploy created (wrangler would try to create it again, and fail). */
  leftoverKvId: string | undefined;
  /** The account's workers.dev subdomain, when it has one. */
  subdomain: string | undefined;
}

/**
 * Asks the account what it is: Workers Paid or Free (the containers API answers only on Paid; it is readable with
 * wrangler login's token, where the billing API is not), whether R2 is switched on (`r2/buckets` answers 10042 when
 * not), and what of this bot is there already.
 */
export async function surveyAccount(
  account: CloudflareAccount,
  names: { worker: string; database: string; kvTitle: string },
  toldPlan: "free" | "paid" | undefined,
): Promise<AccountSurvey> {
  const [containers, r2, service, secrets, databases, kv, subdomain] = await Promise.all([
    toldPlan === undefined ? accountApi(account, "/containers/me") : Promise.resolve(undefined),
    accountApi(account, "/r2/buckets"),
    accountApi(account, `/workers/services/${names.worker}`),
    accountApi(account, `/workers/scripts/${names.worker}/secrets`),
    accountApi(account, `/d1/database?name=${encodeURIComponent(names.database)}`),
    accountApi(account, "/storage/kv/namespaces?per_page=100"),
    accountApi(account, "/workers/subdomain"),
  ]);
  const plan: AccountSurvey["plan"] =
    toldPlan !== undefined
      ? { name: toldPlan, how: "as told (--plan)" }
      : containers?.status === 200
        ? { name: "paid", how: "the account has Cloudflare Containers, which come with Workers Paid" }
        : { name: "free", how: "the account has no Cloudflare Containers, so it is not on Workers Paid" };
  const listed = (result: Awaited<ReturnType<typeof accountApi>>) =>
    result.envelope?.success && Array.isArray(result.envelope.result) ? (result.envelope.result as unknown[]) : [];
  const field = (item: unknown, key: string): string | undefined => {
    const value: unknown = typeof item === "object" && item !== null ? Reflect.get(item, key) : undefined;
    return typeof value === "string" ? value : undefined;
  };
  const workerExists = service.status === 200;
  return {
    plan,
    r2: r2.status === 200,
    workerExists,
    secretNames: workerExists ? listed(secrets).flatMap((item) => field(item, "name") ?? []) : [],
    databaseExists: listed(databases).some((item) => field(item, "name") === names.database),
    leftoverKvId: workerExists
      ? undefined
      : field(
          listed(kv).find((item) => field(item, "title") === names.kvTitle),
          "id",
        ),
    subdomain: subdomain.envelope?.success ? field(subdomain.envelope.result, "subdomain") : undefined,
  };
}

/** Whether a Docker engine answers here (wrangler builds the agent's image with it): WRANGLER_DOCKER_BIN or docker. */
export function dockerAnswers(): boolean {
  const bin = process.env.WRANGLER_DOCKER_BIN ?? "docker";
  const info = spawnSync(bin, ["info"], { stdio: "ignore", timeout: 15_000 });
  return info.status === 0;
}
