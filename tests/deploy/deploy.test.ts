import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeViolation as describeTelegramViolation } from "../../scripts/bot-api/vocabulary.ts";
import { type CloudflareApi, startCloudflareApi } from "../../scripts/cloudflare-api/server.ts";
import { setupCodeOf } from "../../src/access/setup-code.ts";
import { type Fakes, startFakes } from "../fakes/server.ts";
import { type FreshClone, freshClone } from "./fresh-clone.ts";
import { runDeploy } from "./run-deploy.ts";
import { runUploaded } from "./uploaded-worker.ts";

/**
 * `npm run deploy` as a new user runs it: a fresh clone, an empty Cloudflare account (the fake Cloudflare API, which
 * refuses what each plan refuses), the fake's token instead of `npx wrangler login`, nothing typed but the bot token.
 * Then the same again over the live deployment: an upgrade. Telegram is the fake Bot API. No test may leave a
 * violation in either fake.
 */
const TOKEN = "cf-test-token-0123456789";
const FREE = "f0000000000000000000000000000001";
const PAID = "p0000000000000000000000000000002";
const RETRY = "r0000000000000000000000000000003";
const BOT_TOKEN = "123456789:AAFakeBotTokenForTheDeployTest_0123";
const WORKER = "telegram-edge-agent";

let api: CloudflareApi;
let fakes: Fakes;
let clone: FreshClone;

beforeAll(async () => {
  api = await startCloudflareApi({
    token: TOKEN,
    accounts: [
      { id: FREE, name: "Ada's free account", plan: "free", r2: false, subdomain: "ada" },
      { id: PAID, name: "Ada's team", plan: "paid", r2: true, subdomain: "team" },
      { id: RETRY, name: "Ada's retry", plan: "free", r2: false, subdomain: "retry" },
    ],
  });
  fakes = await startFakes();
  clone = freshClone();
});

afterAll(async () => {
  const violations = [...api.violations().map((v) => `cloudflare: ${JSON.stringify(v)}`)];
  violations.push(...fakes.telegram.violations.map((v) => `telegram: ${describeTelegramViolation(v)}`));
  await api.close();
  await fakes.close();
  clone?.remove();
  expect(violations).toEqual([]);
});

const deploy = (account: string, options: { typed?: string; args?: string[] } = {}) =>
  runDeploy({
    cwd: clone.dir,
    apiUrl: api.url,
    token: TOKEN,
    accountId: account,
    telegramUrl: `${fakes.url}/telegram`,
    ...options,
  });

const telegramCalls = (method: string) =>
  fakes.requests.filter((request) => request.service === "telegram" && request.method === method);

describe("npm run deploy on an empty Workers Free account without R2", () => {
  let output = "";

  it("asks for the bot token only, creates D1 and KV with no id pasted, and registers the webhook", async () => {
    const run = await deploy(FREE, { typed: BOT_TOKEN });
    output = run.output;
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("Telegram bot token");
    expect(run.output).not.toContain(BOT_TOKEN);

    const bindings = api.state.bindings(FREE, WORKER);
    const types = Object.fromEntries(bindings.map((binding) => [binding.name, binding.type]));
    expect(types).toMatchObject({ DB: "d1", CONFIG: "kv_namespace", CHAT_SESSION: "durable_object_namespace" });
    expect(types.MEDIA).toBeUndefined();
    expect(api.state.account(FREE).d1.size).toBe(1);
    expect(api.state.account(FREE).kv.size).toBe(1);
    expect(api.state.account(FREE).containers.size).toBe(0);
    // Migrations ran on the new database.
    const tables = api.state.query(FREE, "telegram-edge-agent", "SELECT name FROM sqlite_master WHERE type = 'table'");
    expect(JSON.stringify(tables)).toContain("tasks");

    expect(bindings.find((binding) => binding.name === "WORKERS_PLAN")).toMatchObject({ text: "free" });
    expect(api.state.secretNames(FREE, WORKER).sort()).toEqual([
      "ADMIN_TOKEN",
      "TELEGRAM_BOT_TOKEN",
      "TELEGRAM_WEBHOOK_SECRET",
    ]);
    const variables = bindings.filter((binding) => ["plain_text", "secret_text", "json"].includes(binding.type));
    expect(variables.length).toBeLessThanOrEqual(20);

    const [webhook] = telegramCalls("setWebhook");
    expect(webhook?.body).toMatchObject({ url: `https://${WORKER}.ada.workers.dev/telegram/webhook` });
    const secret = (webhook?.body as { secret_token?: string } | undefined)?.secret_token ?? "";
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(run.output).toContain(`Owner setup code: ${await setupCodeOf(secret)}`);
    expect(run.output).not.toContain(secret);
    expect(telegramCalls("setMyCommands")).toHaveLength(1);
    expect(telegramCalls("setMySettings")[0]?.body).toMatchObject({ can_read_all_group_messages: false });
    expect(run.output).toContain("Guest mode: on");
  });

  it("says what Free leaves off, and why", () => {
    expect(output).toContain("plan: Workers Free (the account has no Cloudflare Containers");
    expect(output).toContain(
      "off: agent sessions (claude-agent, codex-agent, /agent): Cloudflare Containers need Workers Paid",
    );
    expect(output).toContain("off: kept originals of photos, voice notes and files (R2 is not switched on");
    expect(output).toMatch(/\d+ of 64 variables and secrets used/);
  });

  it("keeps this deployment's secrets for the next run, readable by its owner only", () => {
    const file = join(clone.dir, ".deploy", FREE, `${WORKER}.vars`);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(readFileSync(file, "utf8")).toContain("TELEGRAM_BOT_TOKEN=");
  });

  it("the uploaded Worker answers a webhook in the local runtime with the uploaded bindings", async () => {
    const local = await runUploaded({
      api,
      accountId: FREE,
      worker: WORKER,
      dir: join(clone.dir, ".local-run"),
      migrationsDir: join(clone.dir, "migrations"),
      overrides: { TELEGRAM_API_BASE_URL: `${fakes.url}/telegram` },
    });
    try {
      const health = (await (await fetch(`${local.url}/health`)).json()) as {
        plan: string;
        off: { feature: string }[];
      };
      expect(health.plan).toBe("free");
      expect(health.off.map((item) => item.feature)).toContain("agent sessions (claude-agent, codex-agent, /agent)");
      const secret = local.variables.TELEGRAM_WEBHOOK_SECRET ?? "";
      const code = await setupCodeOf(secret);
      const response = await fetch(`${local.url}/telegram/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
        body: JSON.stringify({
          update_id: 1,
          message: {
            message_id: 1,
            date: Math.floor(Date.now() / 1000),
            chat: { id: 4242, type: "private", first_name: "Ada" },
            from: { id: 4242, is_bot: false, first_name: "Ada" },
            text: `/pair ${code}`,
          },
        }),
      });
      expect(response.status).toBe(200);
      await expect
        .poll(() => telegramCalls("sendMessage").map((call) => JSON.stringify(call.body)), { timeout: 30_000 })
        .toContainEqual(expect.stringContaining("You are this bot's owner now"));
    } finally {
      await local.stop();
    }
  });
});

describe("npm run deploy on an empty Workers Paid account with R2", () => {
  it("deploys everything Paid runs: the bucket, and the agent container from a registry image", async () => {
    const image = `registry.cloudflare.com/${PAID}/telegram-edge-agent-runner:v1`;
    const run = await deploy(PAID, { typed: BOT_TOKEN, args: ["--agent-image", image] });
    expect(run.code, run.output).toBe(0);
    const types = Object.fromEntries(api.state.bindings(PAID, WORKER).map((binding) => [binding.name, binding.type]));
    expect(types).toMatchObject({ DB: "d1", CONFIG: "kv_namespace", MEDIA: "r2_bucket" });
    expect(api.state.account(PAID).buckets.has("telegram-edge-agent-media")).toBe(true);
    expect(api.state.account(PAID).containers.size).toBe(1);
    expect(run.output).toContain("plan: Workers Paid");
    expect(run.output).toContain("on: agent sessions");
    expect(run.output).toContain("on: photos, voice notes and files kept once in R2");
  });
});

describe("npm run deploy again over a live deployment (an upgrade)", () => {
  it("types nothing, creates nothing again, keeps every secret and the webhook's secret", async () => {
    const account = api.state.account(FREE);
    const before = {
      d1: [...account.d1.keys()],
      kv: [...account.kv.keys()],
      versions: api.state.script(FREE, WORKER)?.versions.length ?? 0,
    };
    const [firstWebhook] = telegramCalls("setWebhook");
    const run = await deploy(FREE);
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toContain("Telegram bot token (");
    expect(run.output).toContain("is live: this is an upgrade");
    expect([...account.d1.keys()]).toEqual(before.d1);
    expect([...account.kv.keys()]).toEqual(before.kv);
    expect(api.state.script(FREE, WORKER)?.versions.length).toBeGreaterThan(before.versions);
    expect(run.output).toContain("TELEGRAM_BOT_TOKEN: kept (the Worker has it)");
    const webhooks = telegramCalls("setWebhook").filter((call) =>
      JSON.stringify(call.body).includes(".ada.workers.dev"),
    );
    expect(webhooks.at(-1)?.body).toMatchObject({
      secret_token: (firstWebhook?.body as { secret_token?: string } | undefined)?.secret_token,
    });
  });
});

describe("npm run deploy after a first deploy that failed half-way", () => {
  it("uses the KV namespace the failed attempt created, where wrangler alone would fail to create it again", async () => {
    // What a first `wrangler deploy` that failed after provisioning leaves: the namespace, and no Worker.
    api.state.account(RETRY).kv.set("0123456789abcdef0123456789abcdef", {
      id: "0123456789abcdef0123456789abcdef",
      title: `${WORKER}-config`,
      keys: new Map(),
    });
    const run = await deploy(RETRY, { typed: BOT_TOKEN });
    expect(run.code, run.output).toBe(0);
    expect(api.state.account(RETRY).kv.size).toBe(1);
    expect(api.state.bindings(RETRY, WORKER).find((binding) => binding.name === "CONFIG")).toMatchObject({
      namespace_id: "0123456789abcdef0123456789abcdef",
    });
  });
});
