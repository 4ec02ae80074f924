/**
 * Starts the fake Cloudflare API by hand, for trying wrangler or a deploy script against it:
 *   npm run fake:cloudflare -- [--plan free|paid] [--r2 on|off] [--account <id>] [--token <token>] [--port <port>]
 *     [--size-rule uncompressed|gzip]
 * (or `node scripts/cloudflare-api/serve.ts …` with Node 22, which `npm run` puts first on PATH)
 * then, in another shell, the printed CLOUDFLARE_API_BASE_URL, CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID with
 * `npx wrangler …`. Violations are printed as they happen; `GET <origin>/__control/state` shows the accounts.
 */
import { parseArgs } from "node:util";
import { startCloudflareApi } from "./server.ts";
import { describeViolation } from "./violations.ts";

const { values } = parseArgs({
  options: {
    plan: { type: "string", default: "free" },
    r2: { type: "string", default: "on" },
    account: { type: "string", default: "0123456789abcdef0123456789abcdef" },
    token: { type: "string", default: "fake-cloudflare-token" },
    port: { type: "string", default: "0" },
    "size-rule": { type: "string", default: "uncompressed" },
  },
});
const plan = values.plan === "paid" ? "paid" : values.plan === "free" ? "free" : undefined;
const sizeRule = values["size-rule"] === "gzip" ? "gzip" : "uncompressed";
if (!plan || !["on", "off"].includes(values.r2)) {
  console.error("usage: node scripts/cloudflare-api/serve.ts [--plan free|paid] [--r2 on|off] [--account <id>]");
  process.exit(2);
}
const api = await startCloudflareApi({
  token: values.token,
  port: Number(values.port),
  accounts: [{ id: values.account, plan, r2: values.r2 === "on", subdomain: "fake-subdomain", sizeRule }],
  onViolation: (violation) =>
    console.warn(`[cloudflare-api] Cloudflare would not know: ${describeViolation(violation)}`),
});
console.log(`fake Cloudflare API (${plan}, R2 ${values.r2}) on ${api.url}`);
console.log(
  `  CLOUDFLARE_API_BASE_URL=${api.url} CLOUDFLARE_ACCOUNT_ID=${values.account} CLOUDFLARE_API_TOKEN=${values.token}`,
);
console.log(`  control: ${api.origin}/__control/state, /__control/violations, /__control/calls`);
const stop = () => void api.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
