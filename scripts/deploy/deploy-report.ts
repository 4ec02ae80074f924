import type { AccountSurvey } from "./account-survey.ts";
import type { DeployChoices } from "./deploy-config.ts";

export interface DeployReport {
  worker: string;
  workerUrl: string;
  plan: "free" | "paid";
  variables: { used: number; limit: number };
  choices: DeployChoices;
  survey: AccountSurvey;
  adminToken: string;
  deploymentFile: string;
}

/** What is on and off after this deploy, and why: the same list /health and the console's Health page give. */
function featureLines(report: Pick<DeployReport, "plan" | "choices">): string[] {
  const { plan, choices } = report;
  const agents =
    choices.containers.kind !== "off"
      ? "on: agent sessions (claude-agent, codex-agent, /agent) in Cloudflare Containers"
      : plan === "free"
        ? "off: agent sessions (claude-agent, codex-agent, /agent): Cloudflare Containers need Workers Paid"
        : "off: agent sessions (claude-agent, codex-agent, /agent): no Docker engine here to build the agent's image (start Docker, or pass --agent-image <an image in a registry>, and deploy again)";
  const media = choices.r2
    ? "on: photos, voice notes and files kept once in R2 (the MEDIA bucket)"
    : "off: kept originals of photos, voice notes and files (R2 is not switched on for the account): files are read from Telegram again when a turn needs them, and generated images are sent but not kept";
  return [
    "on: chats, tools, memories, tasks, search_history, web_fetch, the console",
    agents,
    media,
    "off: search by meaning in search_history until a Vectorize index is bound (see wrangler.toml); full-text search works",
    ...(plan === "free"
      ? ["Workers Free: each turn keeps within Free's 50 subrequests and 10 ms CPU per invocation"]
      : []),
  ];
}

export function printReport(report: DeployReport): void {
  console.log(`\n✓ ${report.worker} is live: ${report.workerUrl}`);
  console.log(
    `  Workers ${report.plan === "free" ? "Free" : "Paid"}, ${report.variables.used} of ${report.variables.limit} variables and secrets used`,
  );
  for (const line of featureLines(report)) console.log(`  ${line}`);
  console.log(`  Console: ${report.workerUrl}/console (sign in with ${report.adminToken})`);
  console.log(`  Health:  ${report.workerUrl}/health`);
  console.log(
    `  This deployment's secrets are kept in ${report.deploymentFile}: \`npm run deploy\` again upgrades it.`,
  );
}
