import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { type AccountSurvey, dockerAnswers, surveyAccount } from "./account-survey.ts";
import { cloudflareAccount, DeployError } from "./cloudflare-account.ts";
import { type DeployChoices, writeDeployConfig } from "./deploy-config.ts";
import { type DeployReport, printReport } from "./deploy-report.ts";
import { DeploymentFile } from "./deploy-secrets.ts";
import { putSecrets, secretsToPut } from "./secrets-to-put.ts";
import { describeSetup, registerBot } from "./telegram-setup.ts";
import { wrangler } from "./wrangler-cli.ts";

export const DEPLOY_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Workers' limit of variables and secrets together, by plan (Workers limits page). */
const VARIABLE_LIMITS = { free: 64, paid: 128 } as const;

export interface DeployOptions {
  root: string;
  plan: string | undefined;
  agentImage: string | undefined;
  name: string | undefined;
}

/** The steps of `npm run deploy`, in order; each says what it does, and a failure says what to do about it. */
export async function runDeploy(options: DeployOptions): Promise<void> {
  const { root } = options;
  const project = parse(readFileSync(join(root, "wrangler.toml"), "utf8"));
  const worker = options.name ?? String(project.name);
  const database = "telegram-edge-agent";

  step("Cloudflare account");
  const account = await cloudflareAccount(root);
  say(`${account.accountName} (${account.accountId})`);

  const told = options.plan === "free" || options.plan === "paid" ? options.plan : undefined;
  const survey = await surveyAccount(account, { worker, database, kvTitle: `${worker}-config` }, told);
  const choices = choicesFor(survey, options.agentImage);
  say(`plan: Workers ${survey.plan.name === "free" ? "Free" : "Paid"} (${survey.plan.how})`);
  say(`R2: ${survey.r2 ? "on" : "off for this account (switch it on in the dashboard to keep files)"}`);
  say(survey.workerExists ? `${worker} is live: this is an upgrade, nothing is created again` : `${worker} is new`);

  step("Secrets");
  const file = new DeploymentFile({ root: join(root, ".deploy"), accountId: account.accountId, workerName: worker });
  const secrets = await secretsToPut({ file, survey, devVarsPath: join(root, ".dev.vars") });
  for (const line of secrets.lines) say(line);

  const configPath = writeDeployConfig({
    root,
    out: `.deploy/${account.accountId}/${worker}.toml`,
    choices: { ...choices, ...(options.name ? { name: options.name } : {}) },
  });
  const variables = countVariables(configPath, survey, secrets.names);
  const limit = VARIABLE_LIMITS[survey.plan.name];
  if (variables > limit) {
    throw new DeployError(
      `this deploy would give the Worker ${variables} variables and secrets, more than the ${limit} Workers ${survey.plan.name === "free" ? "Free" : "Paid"} allows`,
    );
  }

  // An upgrade migrates D1 first (migrations only add), then uploads; a first deploy uploads (which creates D1).
  if (survey.databaseExists) await migrate(root, configPath);
  if (survey.workerExists) await putSecrets(root, configPath, secrets.toPut);

  step(`Upload (wrangler deploy, ${choices.containers.kind === "off" ? "no container" : "with the agent container"})`);
  const deployed = await wrangler(["deploy", "--config", configPath], { cwd: root, show: true });
  if (deployed.code !== 0) throw new DeployError(`wrangler deploy failed:\n${tail(deployed.output)}`);
  if (!survey.databaseExists) await migrate(root, configPath);
  if (!survey.workerExists) await putSecrets(root, configPath, secrets.toPut);

  const workerUrl =
    deployed.output.match(/https:\/\/[a-z0-9.-]+\.workers\.dev/)?.[0] ??
    (survey.subdomain ? `https://${worker}.${survey.subdomain}.workers.dev` : undefined);
  if (!workerUrl)
    throw new DeployError("wrangler deploy named no workers.dev address: is workers.dev on for the account?");

  step("Telegram");
  const setup = await registerBot({
    token: secrets.botToken,
    secret: secrets.webhookSecret,
    apiBaseUrl: process.env.TELEGRAM_API_BASE_URL ?? "https://api.telegram.org",
    workerUrl,
  });
  for (const line of describeSetup(setup)) say(line);
  file.write(secrets.keep);

  const report: DeployReport = {
    worker,
    workerUrl,
    plan: survey.plan.name,
    variables: { used: variables, limit },
    choices,
    survey,
    adminToken: secrets.adminTokenWhere,
    deploymentFile: file.path,
  };
  printReport(report);
}

/** What this deploy runs with, from what the account allows and what this machine can build. */
function choicesFor(survey: AccountSurvey, agentImage: string | undefined): DeployChoices {
  const containers: DeployChoices["containers"] =
    survey.plan.name === "free"
      ? { kind: "off" }
      : agentImage !== undefined
        ? { kind: "image", image: agentImage }
        : dockerAnswers()
          ? { kind: "build" }
          : { kind: "off" };
  return {
    plan: survey.plan.name,
    r2: survey.r2,
    containers,
    ...(survey.leftoverKvId ? { kvId: survey.leftoverKvId } : {}),
  };
}

/** The Worker's variables after this deploy: the config's [vars] and every secret, those it has and those put now. */
function countVariables(configPath: string, survey: AccountSurvey, putting: readonly string[]): number {
  const config = parse(readFileSync(configPath, "utf8"));
  const vars = typeof config.vars === "object" && config.vars !== null ? Object.keys(config.vars).length : 0;
  return vars + new Set([...survey.secretNames, ...putting]).size;
}

async function migrate(root: string, configPath: string): Promise<void> {
  step("D1 migrations");
  const applied = await wrangler(["d1", "migrations", "apply", "DB", "--remote", "--config", configPath], {
    cwd: root,
  });
  if (applied.code !== 0) throw new DeployError(`D1's migrations could not be applied:\n${tail(applied.output)}`);
  const names = new Set(applied.output.match(/\b\d{4}_[\w-]+\.sql\b/g) ?? []);
  say(names.size === 0 ? "none to apply" : `applied ${names.size}: ${[...names].join(", ")}`);
}

function step(title: string): void {
  console.log(`\n▸ ${title}`);
}

function say(line: string): void {
  console.log(`  ${line}`);
}

/** The end of a command's output, where its error is. */
function tail(output: string): string {
  return output.trim().split("\n").slice(-15).join("\n");
}
