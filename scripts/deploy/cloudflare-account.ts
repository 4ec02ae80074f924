import * as z from "zod";
import { jsonOutput, wrangler } from "./wrangler-cli.ts";

/** A step of the deploy that cannot go on, with what to do about it (never a secret). */
export class DeployError extends Error {
  override readonly name = "DeployError";
}

/** Who deploys where: the account, a token for the few API calls wrangler has no command for, and the API's root. */
export interface CloudflareAccount {
  accountId: string;
  accountName: string;
  token: string;
  apiBaseUrl: string;
}

const whoamiSchema = z.object({
  loggedIn: z.boolean().optional(),
  accounts: z.array(z.object({ id: z.string(), name: z.string() })).default([]),
});
const tokenSchema = z.object({ token: z.string().optional(), value: z.string().optional() }).loose();

/**
 * The account to deploy to, through wrangler itself: a login (`npx wrangler login`, asked for here when the terminal
 * is a person's and nobody is logged in) or CLOUDFLARE_API_TOKEN, and CLOUDFLARE_ACCOUNT_ID when the login sees
 * several accounts.
 */
export async function cloudflareAccount(cwd: string): Promise<CloudflareAccount> {
  let whoami = await wrangler(["whoami", "--json"], { cwd });
  if (whoami.code !== 0 && process.stdin.isTTY && process.env.CLOUDFLARE_API_TOKEN === undefined) {
    console.log("Not logged in to Cloudflare: opening wrangler login (a browser window asks you to allow it).");
    const login = await wrangler(["login"], { cwd, interactive: true });
    if (login.code !== 0)
      throw new DeployError("wrangler login did not finish; run `npx wrangler login` and try again.");
    whoami = await wrangler(["whoami", "--json"], { cwd });
  }
  const who = whoamiSchema.safeParse(jsonOutput(whoami.stdout));
  if (whoami.code !== 0 || !who.success) {
    throw new DeployError(
      "Not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID), then `npm run deploy` again.",
    );
  }
  const wanted = process.env.CLOUDFLARE_ACCOUNT_ID;
  const accounts = who.data.accounts;
  const account = wanted
    ? accounts.find((each) => each.id === wanted)
    : accounts.length === 1
      ? accounts[0]
      : undefined;
  if (!account) {
    const names = accounts.map((each) => `${each.name} (${each.id})`).join(", ") || "none";
    throw new DeployError(
      wanted
        ? `CLOUDFLARE_ACCOUNT_ID is not one of the accounts this login can use: ${names}.`
        : `This login can use several accounts (${names}): set CLOUDFLARE_ACCOUNT_ID to the one to deploy to.`,
    );
  }
  const printed = await wrangler(["auth", "token", "--json"], { cwd });
  const parsed = tokenSchema.safeParse(jsonOutput(printed.stdout));
  const token = parsed.success ? (parsed.data.token ?? parsed.data.value) : undefined;
  if (printed.code !== 0 || !token) throw new DeployError("wrangler could not give its token (`wrangler auth token`).");
  return {
    accountId: account.id,
    accountName: account.name,
    token,
    apiBaseUrl: (process.env.CLOUDFLARE_API_BASE_URL ?? "https://api.cloudflare.com/client/v4").replace(/\/+$/, ""),
  };
}

const envelopeSchema = z.object({
  success: z.boolean(),
  errors: z.array(z.object({ code: z.number(), message: z.string() })).default([]),
  result: z.unknown(),
});

/** One call of Cloudflare's v4 API for this account: its status and envelope (undefined when it is not one). */
export async function accountApi(
  account: CloudflareAccount,
  path: string,
): Promise<{ status: number; envelope: z.infer<typeof envelopeSchema> | undefined }> {
  const response = await fetch(`${account.apiBaseUrl}/accounts/${account.accountId}${path}`, {
    headers: { authorization: `Bearer ${account.token}` },
  });
  const parsed = envelopeSchema.safeParse(await response.json().catch(() => undefined));
  return { status: response.status, envelope: parsed.success ? parsed.data : undefined };
}
