/**
 * `npm run deploy [-- --plan free|paid] [--agent-image <registry image>] [--name <worker>]`: from an empty Cloudflare
 * account (or a live deployment: then it is an upgrade) to a live bot. It finds out the account's plan and what it has
 * switched on, writes the plan's config from wrangler.toml, lets wrangler create D1, KV and R2 (no id is pasted),
 * applies D1's migrations, puts the secrets it needs (asking only for the bot token, never echoing it), uploads,
 * points Telegram at the webhook, and says what is on and off, and the owner's setup code.
 */
import { parseArgs } from "node:util";
import { DeployError } from "./cloudflare-account.ts";
import { DEPLOY_ROOT, runDeploy } from "./deploy-steps.ts";
import { TelegramSetupError } from "./telegram-setup.ts";

const USAGE = "Usage: npm run deploy [-- --plan free|paid] [--agent-image <registry image>] [--name <worker name>]";

function options() {
  try {
    const { values } = parseArgs({
      options: {
        plan: { type: "string" },
        "agent-image": { type: "string" },
        name: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    if (values.plan !== undefined && values.plan !== "free" && values.plan !== "paid") {
      throw new DeployError("--plan is free or paid");
    }
    if (values.name !== undefined && !/^[a-z0-9][a-z0-9-]{0,62}$/.test(values.name)) {
      throw new DeployError("--name is a Worker name: lower-case letters, digits and dashes, at most 63");
    }
    return {
      plan: values.plan,
      agentImage: values["agent-image"],
      name: values.name,
    };
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    console.error(USAGE);
    process.exit(2);
  }
}

try {
  await runDeploy({ root: DEPLOY_ROOT, ...options() });
  process.exit(0);
} catch (error) {
  if (error instanceof DeployError || error instanceof TelegramSetupError) {
    console.error(`\n✗ ${error.message}`);
    process.exit(1);
  }
  throw error;
}
