import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { currentVersion } from "../../scripts/cloudflare-api/accounts.ts";
import { type CloudflareApi, startCloudflareApi } from "../../scripts/cloudflare-api/server.ts";
import { describeViolation } from "../../scripts/cloudflare-api/violations.ts";
import {
  projectConfig,
  REPO_ROOT,
  runWrangler,
  type WranglerOptions,
  type WranglerPlace,
  wranglerPlace,
} from "../fakes/wrangler.ts";

/**
 * The fake Cloudflare API (scripts/cloudflare-api/) with the real wrangler 4.164 against it: deploys of this project
 * (resources provisioned, linked and found again, Durable Object migrations applied once), secrets, remote D1, and
 * every refusal Cloudflare makes for an account's plan, in Cloudflare's codes and words. Anything wrangler calls that
 * the fake does not know is a violation, and fails the test that caused it.
 */
const TOKEN = "fake-api-token-0123456789abcdef";
const OAUTH_TOKEN = "fake-oauth-token-0123456789abcdef";
const FREE = "f0000000000000000000000000000001";
const FREE_CONTAINERS = "f0000000000000000000000000000002";
const NO_R2 = "f0000000000000000000000000000003";
const SMALL = "f0000000000000000000000000000004";
const PAID = "a0000000000000000000000000000001";
const SIZES = "a0000000000000000000000000000002";
const SUBDOMAIN = "fake-sub";
const WORKER = "telegram-edge-agent";
/** A few variables (the project's own four would do as well). */
const FEW_VARS = { BOT_NAME: "Assistant", DEFAULT_TIMEZONE: "UTC" };

let api: CloudflareApi;
let place: WranglerPlace;

beforeAll(async () => {
  api = await startCloudflareApi({
    token: TOKEN,
    oauthToken: OAUTH_TOKEN,
    accounts: [
      { id: FREE, plan: "free", r2: true, subdomain: SUBDOMAIN },
      { id: FREE_CONTAINERS, plan: "free", r2: true, subdomain: SUBDOMAIN },
      { id: NO_R2, plan: "free", r2: false, subdomain: SUBDOMAIN },
      { id: SMALL, plan: "free", r2: true, subdomain: SUBDOMAIN },
      { id: PAID, plan: "paid", r2: true, subdomain: SUBDOMAIN },
      { id: SIZES, plan: "free", r2: true, subdomain: SUBDOMAIN },
    ],
  });
  place = await wranglerPlace();
});
afterAll(async () => {
  await api.close();
  await place.remove();
});
afterEach(() => {
  // Whatever wrangler sent, Cloudflare would know every endpoint and field of it.
  expect(api.violations().map(describeViolation)).toEqual([]);
});

function wrangler(accountId: string, args: string[], options: Partial<WranglerOptions> = {}) {
  return runWrangler(args, { place, apiUrl: api.url, accountId, token: TOKEN, ...options });
}

/** The calls the fake answered from `from` on, as "METHOD /path" with the account's prefix left out. */
function callsSince(from: number, accountId: string): string[] {
  return api.calls.slice(from).map((call) => `${call.method} ${call.path.replace(`/accounts/${accountId}`, "")}`);
}

/** A call to the fake's API without wrangler (`token` null: no Authorization header at all). */
async function direct(path: string, init: RequestInit = {}, token: string | null = TOKEN) {
  const response = await fetch(`${api.url}${path}`, {
    ...init,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function clearViolations(): void {
  api.state.violations.length = 0;
}

describe("who is calling", () => {
  it("wrangler whoami shows the accounts the token can use", async () => {
    const from = api.calls.length;
    const run = await wrangler(FREE, ["whoami"]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(
      "You are logged in with an User API Token, associated with the email user@example.com",
    );
    expect(run.output).toContain(FREE);
    expect(run.output).toContain(PAID);
    expect(callsSince(from, FREE)).toEqual([
      "GET /user/tokens/verify",
      "GET /user",
      "GET /accounts?page=1",
      "GET /memberships?page=1",
    ]);
  });

  it("refuses a missing or wrong token, and an account the token cannot use, in Cloudflare's codes and words", async () => {
    expect(await direct(`/accounts/${FREE}/workers/scripts`, {}, null)).toMatchObject({
      status: 400,
      body: {
        success: false,
        errors: [{ code: 9106, message: "Missing X-Auth-Key, X-Auth-Email or Authorization headers" }],
      },
    });
    expect(await direct(`/accounts/${FREE}/workers/scripts`, {}, "wrong")).toMatchObject({
      status: 403,
      body: { errors: [{ code: 10000, message: "Authentication error" }] },
    });
    expect(await direct("/user/tokens/verify", {}, "wrong")).toMatchObject({
      status: 401,
      body: { errors: [{ code: 1000, message: "Invalid API Token" }] },
    });
    expect(await direct("/accounts/00000000000000000000000000000099/workers/scripts")).toMatchObject({
      status: 403,
      body: { errors: [{ code: 10000, message: "Authentication error" }] },
    });
    const run = await wrangler(FREE, ["kv", "namespace", "list"], { token: "wrong" });
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("Authentication error [code: 10000]");
  });
});

describe("a Free account: first deploy, secrets, second deploy, D1", () => {
  let configPath: string;
  let config: string;

  beforeAll(async () => {
    config = await projectConfig({ ids: "none", containers: "remove", vars: FEW_VARS });
    configPath = await place.write("free/wrangler.toml", config);
  });

  it("provisions D1, KV and R2 without asking (names from the config, else <worker>-<binding>), links them and applies the Durable Object migrations", async () => {
    const run = await wrangler(FREE, ["deploy", "--config", configPath]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('Creating new KV Namespace "telegram-edge-agent-config"');
    expect(run.output).toContain('Creating new D1 Database "telegram-edge-agent"');
    expect(run.output).toContain('Creating new R2 Bucket "telegram-edge-agent-media"');
    expect(run.output).toContain(`https://${WORKER}.${SUBDOMAIN}.workers.dev`);
    // In CI (non-interactive) wrangler writes no ids back into the config; the next deploy finds them through the API.
    expect(await readFile(configPath, "utf8")).toBe(config);

    const account = api.state.account(FREE);
    const [database] = [...account.d1.values()];
    const [namespace] = [...account.kv.values()];
    expect(database?.name).toBe("telegram-edge-agent");
    expect(namespace?.title).toBe("telegram-edge-agent-config");
    expect([...account.buckets.keys()]).toEqual(["telegram-edge-agent-media"]);
    const bindings = api.state.bindings(FREE, WORKER);
    expect(bindings).toEqual(
      expect.arrayContaining([
        { name: "DB", type: "d1", id: database!.uuid },
        { name: "CONFIG", type: "kv_namespace", namespace_id: namespace!.id },
        { name: "MEDIA", type: "r2_bucket", bucket_name: "telegram-edge-agent-media" },
        { name: "AI", type: "ai" },
        { name: "BOT_NAME", type: "plain_text", text: "Assistant" },
        expect.objectContaining({ name: "CHAT_SESSION", type: "durable_object_namespace", class_name: "ChatSession" }),
        expect.objectContaining({ name: "ADMIN_WRONG_TRIES", type: "ratelimit", namespace_id: "1001" }),
      ]),
    );
    expect([...account.durableObjects.values()].map((ns) => [ns.className, ns.useSqlite])).toEqual([
      ["ChatSession", true],
      ["AgentContainer", true],
      ["HelperSession", true],
    ]);
    const script = api.state.script(FREE, WORKER)!;
    expect(script.migrationTag).toBe("v2");
    expect(script.migrationsApplied).toEqual([
      {
        oldTag: undefined,
        newTag: "v2",
        steps: [{ new_sqlite_classes: ["ChatSession", "AgentContainer"] }, { new_sqlite_classes: ["HelperSession"] }],
      },
    ]);
    expect(script.workersDev.enabled).toBe(true);
    const version = currentVersion(script)!;
    expect(version.compatibilityDate).toBe("2026-11-09");
    expect(version.compatibilityFlags).toEqual(["nodejs_compat", "no_nodejs_global_timers"]);
    expect(script.settings.observability).toEqual({ enabled: true });
    expect(version.mainModule).toBe("worker.js");
  });

  it("puts a secret from stdin and a file of secrets, and lists their names only", async () => {
    const value = "123456:SECRET-VALUE-never-printed";
    const put = await wrangler(FREE, ["secret", "put", "TELEGRAM_BOT_TOKEN", "--config", configPath], { stdin: value });
    expect(put.code, put.output).toBe(0);
    const file = await place.write(
      "secrets.json",
      JSON.stringify({ OPENAI_API_KEY: "sk-fake", ADMIN_TOKEN: "t".repeat(40) }),
    );
    const bulk = await wrangler(FREE, ["secret", "bulk", file, "--config", configPath]);
    expect(bulk.code, bulk.output).toBe(0);
    expect(bulk.output).toContain("2 secrets successfully created");
    const list = await wrangler(FREE, ["secret", "list", "--config", configPath]);
    expect(list.code, list.output).toBe(0);
    const names = (JSON.parse(list.stdout.slice(list.stdout.indexOf("["))) as { name: string }[]).map((s) => s.name);
    expect(names.sort()).toEqual(["ADMIN_TOKEN", "OPENAI_API_KEY", "TELEGRAM_BOT_TOKEN"]);
    expect(list.output).not.toContain(value);
    expect(api.state.secretNames(FREE, WORKER)).toEqual(["ADMIN_TOKEN", "OPENAI_API_KEY", "TELEGRAM_BOT_TOKEN"]);
  });

  it("a second deploy finds the resources again through the Worker's settings, keeps the secrets and applies no migration again", async () => {
    const account = api.state.account(FREE);
    const before = api.state.bindings(FREE, WORKER);
    const from = api.calls.length;
    const run = await wrangler(FREE, ["deploy", "--config", configPath]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("env.CONFIG (inherited)");
    expect(run.output).toContain("env.DB (inherited)");
    const calls = callsSince(from, FREE);
    expect(calls).toContain(`GET /workers/scripts/${WORKER}/settings`);
    expect(
      calls.filter(
        (call) => call.startsWith("POST /storage") || call.startsWith("POST /d1") || call.startsWith("POST /r2"),
      ),
    ).toEqual([]);
    expect([account.d1.size, account.kv.size, account.buckets.size]).toEqual([1, 1, 1]);
    const after = api.state.bindings(FREE, WORKER);
    for (const name of ["DB", "CONFIG", "MEDIA"]) {
      expect(after.find((b) => b.name === name)).toEqual(before.find((b) => b.name === name));
    }
    expect(api.state.secretNames(FREE, WORKER)).toEqual(["ADMIN_TOKEN", "OPENAI_API_KEY", "TELEGRAM_BOT_TOKEN"]);
    const script = api.state.script(FREE, WORKER)!;
    expect(script.migrationsApplied).toHaveLength(1);
    expect(script.migrationTag).toBe("v2");
  });

  it("a config with ids deploys with them and provisions nothing; the placeholder ids earlier releases shipped are refused as Cloudflare refuses them", async () => {
    const account = api.state.account(FREE);
    const ids = { d1: [...account.d1.keys()][0]!, kv: [...account.kv.keys()][0]! };
    const from = api.calls.length;
    const placeholders = await wrangler(FREE, [
      "deploy",
      "--config",
      await place.write("free/placeholder-ids.toml", await projectConfig({ ids: "placeholders", vars: FEW_VARS })),
    ]);
    expect(placeholders.code).not.toBe(0);
    expect(placeholders.output).toContain("KV namespace '00000000000000000000000000000000' not found. [code: 10041]");
    const withIds = await wrangler(FREE, [
      "deploy",
      "--config",
      await place.write("free/ids.toml", await projectConfig({ ids, vars: FEW_VARS })),
    ]);
    expect(withIds.code, withIds.output).toBe(0);
    expect(withIds.output).toContain(`env.CONFIG (${ids.kv})`);
    const calls = callsSince(from, FREE);
    expect(calls.filter((call) => /^(POST|GET) \/(storage|d1\/database)/.test(call))).toEqual([]);
    expect(api.state.bindings(FREE, WORKER)).toEqual(
      expect.arrayContaining([
        { name: "DB", type: "d1", id: ids.d1 },
        { name: "CONFIG", type: "kv_namespace", namespace_id: ids.kv },
      ]),
    );
    expect([account.d1.size, account.kv.size]).toEqual([1, 1]);
  });

  it("applies the D1 migrations remotely once, into d1_migrations, and a query sees the project's tables", async () => {
    const apply = await wrangler(FREE, ["d1", "migrations", "apply", "DB", "--remote", "--config", configPath]);
    expect(apply.code, apply.output).toBe(0);
    const files = (await readdir(join(REPO_ROOT, "migrations"))).filter((name) => name.endsWith(".sql")).sort();
    expect(api.state.query(FREE, "telegram-edge-agent", "SELECT name FROM d1_migrations ORDER BY id")).toEqual(
      files.map((name) => ({ name })),
    );
    const again = await wrangler(FREE, ["d1", "migrations", "apply", "DB", "--remote", "--config", configPath]);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain("No migrations to apply");
    const query = await wrangler(FREE, [
      "d1",
      "execute",
      "DB",
      "--remote",
      "--json",
      "--config",
      configPath,
      "--command",
      "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    ]);
    expect(query.code, query.output).toBe(0);
    const [result] = JSON.parse(query.stdout) as { results: { name: string }[]; success: boolean }[];
    expect(result?.success).toBe(true);
    expect(result?.results.map((row) => row.name)).toEqual(
      expect.arrayContaining(["d1_migrations", "memories", "memories_search", "skills", "tasks", "usage_records"]),
    );
    // A file goes through D1's import API (init, the upload, ingest), all of it or nothing.
    const seed = await place.write(
      "seed.sql",
      "CREATE TABLE seed (n INTEGER);\nINSERT INTO seed VALUES (1);\nINSERT INTO seed VALUES (2);\n",
    );
    const file = await wrangler(FREE, ["d1", "execute", "DB", "--remote", "--config", configPath, "--file", seed]);
    expect(file.code, file.output).toBe(0);
    expect(file.output).toContain("Executed 3 queries");
    expect(api.state.query(FREE, "telegram-edge-agent", "SELECT sum(n) AS total FROM seed")).toEqual([{ total: 3 }]);
  });

  it("refuses a D1 statement over 100,000 bytes and one with more than 100 bound parameters", async () => {
    const execute = (sql: string) =>
      wrangler(FREE, ["d1", "execute", "DB", "--remote", "--config", configPath, "--command", sql]);
    const long = await execute(`SELECT '${"x".repeat(100_000)}' AS big`);
    expect(long.code).not.toBe(0);
    expect(long.output).toContain("statement too long: SQLITE_TOOBIG [code: 7500]");
    const many = await execute(`SELECT ${Array.from({ length: 101 }, () => "?").join(", ")}`);
    expect(many.code).not.toBe(0);
    expect(many.output).toMatch(/too many SQL variables at offset \d+: SQLITE_ERROR \[code: 7500\]/);
    const hundred = await execute(`SELECT ${Array.from({ length: 100 }, () => "?").join(", ")}`);
    expect(hundred.code, hundred.output).toBe(0);
  });

  it("kv namespace list and r2 bucket list/create see the account's resources", async () => {
    const kv = await wrangler(FREE, ["kv", "namespace", "list"]);
    expect(kv.code, kv.output).toBe(0);
    expect(JSON.parse(kv.stdout.slice(kv.stdout.indexOf("[")))).toEqual([
      {
        id: [...api.state.account(FREE).kv.keys()][0],
        title: "telegram-edge-agent-config",
        supports_url_encoding: true,
      },
    ]);
    const create = await wrangler(FREE, ["r2", "bucket", "create", "telegram-edge-agent-backups"]);
    expect(create.code, create.output).toBe(0);
    const list = await wrangler(FREE, ["r2", "bucket", "list"]);
    expect(list.code, list.output).toBe(0);
    expect(list.output).toContain("name:           telegram-edge-agent-media");
    expect(list.output).toContain("name:           telegram-edge-agent-backups");
  });

  it("refuses 77 [vars] (as earlier releases shipped) on Free but not on Paid, and a secret that would pass the limit", async () => {
    const seventySeven = Object.fromEntries(Array.from({ length: 77 }, (_, index) => [`SETTING_${index}`, "x"]));
    const fullPath = await place.write(
      "free/full-vars.toml",
      await projectConfig({ ids: "none", containers: "remove", vars: seventySeven }),
    );
    const versions = api.state.script(FREE, WORKER)!.versions.length;
    const refused = await wrangler(FREE, ["deploy", "--config", fullPath]);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(
      /Your Worker has \d+ environment variables \(text, JSON and secrets together\), more than the 64 the Workers Free plan allows\..*\[code: 10021\]/,
    );
    expect(api.state.script(FREE, WORKER)!.versions).toHaveLength(versions);

    api.state.configure(FREE, { plan: "paid" });
    const accepted = await wrangler(FREE, ["deploy", "--config", fullPath]);
    expect(accepted.code, accepted.output).toBe(0);
    const count = api.state
      .bindings(FREE, WORKER)
      .filter((b) => ["plain_text", "json", "secret_text"].includes(b.type));
    expect(count.length).toBeGreaterThan(64);
    expect(count.length).toBeLessThanOrEqual(128);

    api.state.configure(FREE, { plan: "free" });
    const secret = await wrangler(FREE, ["secret", "put", "ONE_MORE", "--config", fullPath], { stdin: "value" });
    expect(secret.code).not.toBe(0);
    expect(secret.output).toContain(`Your Worker has ${count.length + 1} environment variables`);
    expect(api.state.secretNames(FREE, WORKER)).not.toContain("ONE_MORE");
  });
});

describe("containers", () => {
  it("on Free, an upload that links a Durable Object class to a container is refused, and so is the containers API", async () => {
    const configPath = await place.write(
      "free-containers/wrangler.toml",
      await projectConfig({ ids: "none", containers: "keep", vars: FEW_VARS }),
    );
    const run = await wrangler(FREE_CONTAINERS, ["deploy", "--containers-rollout=none", "--config", configPath]);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain(
      "You do not have access to Cloudflare Containers. Deploying containers requires the Workers Paid plan. [code: 10075]",
    );
    expect(api.state.script(FREE_CONTAINERS, WORKER)).toBeUndefined();
    expect(await direct(`/accounts/${FREE_CONTAINERS}/containers/me`)).toEqual({
      status: 401,
      body: {
        error:
          "Unauthorized: You do not have access to Cloudflare Containers. Deploying containers requires the Workers Paid plan. Upgrade your plan at https://dash.cloudflare.com/?to=/:account/workers/plans",
      },
    });
  });

  describe("on Paid", () => {
    let dockerfileConfig: string;

    beforeAll(async () => {
      dockerfileConfig = await place.write(
        "paid/wrangler.toml",
        await projectConfig({ ids: "none", containers: "keep" }),
      );
    });

    it("--containers-rollout=none uploads the Worker with its container link and calls no containers API; a second deploy reads the link back from the deployed version", async () => {
      const from = api.calls.length;
      const first = await wrangler(PAID, ["deploy", "--containers-rollout=none", "--config", dockerfileConfig]);
      expect(first.code, first.output).toBe(0);
      const link = [{ name: "telegram-edge-agent-agentcontainer", class_name: "AgentContainer" }];
      expect(currentVersion(api.state.script(PAID, WORKER)!)?.containers).toEqual(link);
      const second = await wrangler(PAID, ["deploy", "--containers-rollout=none", "--config", dockerfileConfig]);
      expect(second.code, second.output).toBe(0);
      const calls = callsSince(from, PAID);
      expect(calls.filter((call) => call.includes("/containers"))).toEqual([]);
      expect(calls).toContainEqual(
        expect.stringMatching(new RegExp(`^GET /workers/scripts/${WORKER}/versions/[0-9a-f-]+$`)),
      );
      expect(currentVersion(api.state.script(PAID, WORKER)!)?.containers).toEqual(link);
    });

    it("with a Dockerfile and no Docker engine, wrangler stops before calling the API", async () => {
      const from = api.calls.length;
      const run = await wrangler(PAID, ["deploy", "--config", dockerfileConfig], {
        env: { WRANGLER_DOCKER_BIN: "/nonexistent/docker" },
      });
      expect(run.code).not.toBe(0);
      expect(run.output).toContain("The Docker CLI is needed to build the configured image before deploying");
      expect(run.output).toContain("--containers-rollout=none");
      expect(api.calls.length).toBe(from);
    });

    it("with a registry image, the application is created bound to the class's Durable Object namespace; the same again changes nothing, a new image is rolled out", async () => {
      const image = `registry.cloudflare.com/${PAID}/agent:v1`;
      const configPath = await place.write(
        "paid/registry.toml",
        await projectConfig({ ids: "none", containers: { image } }),
      );
      const from = api.calls.length;
      const first = await wrangler(PAID, ["deploy", "--config", configPath]);
      expect(first.code, first.output).toBe(0);
      expect(first.output).toContain("Created application telegram-edge-agent-agentcontainer");
      const [app] = [...api.state.account(PAID).containers.values()];
      const namespace = [...api.state.account(PAID).durableObjects.values()].find(
        (ns) => ns.className === "AgentContainer",
      );
      expect(app?.body).toMatchObject({
        name: "telegram-edge-agent-agentcontainer",
        configuration: { image, instance_type: "basic" },
        max_instances: 10,
        durable_objects: { namespace_id: namespace!.id },
      });
      const second = await wrangler(PAID, ["deploy", "--config", configPath]);
      expect(second.code, second.output).toBe(0);
      expect(second.output).toContain("No changes to be made");
      const v2 = await place.write(
        "paid/registry-v2.toml",
        await projectConfig({ ids: "none", containers: { image: image.replace(":v1", ":v2") } }),
      );
      const third = await wrangler(PAID, ["deploy", "--config", v2]);
      expect(third.code, third.output).toBe(0);
      expect(app?.body.configuration).toMatchObject({ image: image.replace(":v1", ":v2") });
      expect(app?.version).toBe(2);
      expect(callsSince(from, PAID).filter((call) => call.includes("/containers"))).toEqual([
        "GET /containers/applications",
        "POST /containers/applications",
        "GET /containers/applications",
        "GET /containers/applications",
        `PATCH /containers/applications/${app?.id}`,
        `POST /containers/applications/${app?.id}/rollouts`,
      ]);
    });
  });
});

describe("an account without R2", () => {
  it("refuses every R2 call with 10042; a deploy skips provisioning the bucket and the upload fails on it; the retry then fails on the KV namespace the first attempt created", async () => {
    for (const args of [
      ["r2", "bucket", "list"],
      ["r2", "bucket", "create", "any-bucket"],
    ]) {
      const run = await wrangler(NO_R2, args);
      expect(run.code).not.toBe(0);
      expect(run.output).toContain("Please enable R2 through the Cloudflare Dashboard. [code: 10042]");
    }
    const configPath = await place.write(
      "no-r2/wrangler.toml",
      await projectConfig({ ids: "none", containers: "remove", vars: FEW_VARS }),
    );
    const from = api.calls.length;
    const deploy = await wrangler(NO_R2, ["deploy", "--config", configPath]);
    expect(deploy.code).not.toBe(0);
    expect(deploy.output).toContain(
      "R2 bucket 'telegram-edge-agent-media' not found. Please use a different name and try again. [code: 10085]",
    );
    const calls = callsSince(from, NO_R2);
    expect(calls).toContain("GET /r2/buckets/telegram-edge-agent-media");
    expect(calls.filter((call) => call.startsWith("POST /r2"))).toEqual([]);
    // What the failed deploy left behind: wrangler had created the KV namespace and the D1 database first.
    expect([api.state.account(NO_R2).kv.size, api.state.account(NO_R2).d1.size]).toEqual([1, 1]);

    // R2 switched on: wrangler provisions the KV binding again by its default name, which Cloudflare refuses.
    api.state.configure(NO_R2, { r2: true });
    const retry = await wrangler(NO_R2, ["deploy", "--config", configPath]);
    expect(retry.code).not.toBe(0);
    expect(retry.output).toContain("a namespace with this account ID and title already exists [code: 10014]");
  });
});

describe("the Worker's size", () => {
  let bigConfig: string;

  beforeAll(async () => {
    await place.write(
      "big/index.js",
      'import blob from "./blob.bin";\nexport default { fetch() { return new Response(String(blob.byteLength)); } };\n',
    );
    bigConfig = await place.write(
      "big/wrangler.toml",
      'name = "big-worker"\nmain = "index.js"\ncompatibility_date = "2026-11-09"\n\n[[rules]]\ntype = "Data"\nglobs = ["**/*.bin"]\n',
    );
  });

  it("is refused over 64 MiB uncompressed on any plan (Cloudflare's rule since September 2026)", async () => {
    await place.write("big/blob.bin", new Uint8Array(65 * 1024 * 1024));
    const run = await wrangler(PAID, ["deploy", "--config", bigConfig]);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("Your Worker exceeded the size limit of 64 MiB. Refer to the Workers documentation");
    expect(run.output).toContain("[code: 10027]");
    expect(api.state.script(PAID, "big-worker")).toBeUndefined();
  });

  it("is refused over 3 MB gzip on Free and accepted on Paid under the earlier gzip rule", async () => {
    api.state.configure(SIZES, { sizeRule: "gzip" });
    await place.write("big/blob.bin", randomBytes(3.2 * 1024 * 1024));
    const free = await wrangler(SIZES, ["deploy", "--config", bigConfig]);
    expect(free.code).not.toBe(0);
    expect(free.output).toContain(
      "Your Worker exceeded the size limit of 3 MiB. Please upgrade to a paid plan to deploy Workers up to 10 MiB.",
    );
    api.state.configure(SIZES, { plan: "paid" });
    const paid = await wrangler(SIZES, ["deploy", "--config", bigConfig]);
    expect(paid.code, paid.output).toBe(0);
    expect(currentVersion(api.state.script(SIZES, "big-worker")!)?.size.gzipBytes).toBeGreaterThan(3 * 1024 * 1024);
  });
});

describe("Durable Object migrations", () => {
  const source = [
    'import { DurableObject } from "cloudflare:workers";',
    "export class Counter extends DurableObject {}",
    "export class Other extends DurableObject {}",
    'export default { fetch() { return new Response("ok"); } };',
  ].join("\n");
  const config = (migrations: string, bindings: string[]) =>
    [
      'name = "small-worker"',
      'main = "index.js"',
      'compatibility_date = "2026-11-09"',
      ...bindings.map((name) => `[[durable_objects.bindings]]\nname = "${name.toUpperCase()}"\nclass_name = "${name}"`),
      migrations,
    ].join("\n");

  beforeAll(async () => {
    await place.write("small/index.js", source);
  });

  it("refuses key-value classes (new_classes) on Free", async () => {
    const path = await place.write(
      "small/kv.toml",
      config('[[migrations]]\ntag = "v1"\nnew_classes = ["Counter"]', ["Counter"]),
    );
    const run = await wrangler(SMALL, ["deploy", "--config", path]);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain(
      "In order to use Durable Objects with a free plan, you must create a namespace using a `new_sqlite_classes` migration. [code: 10097]",
    );
  });

  it("sends only the tags after the Worker's current one, and refuses a history that would create a live class again", async () => {
    const v1 = '[[migrations]]\ntag = "v1"\nnew_sqlite_classes = ["Counter"]';
    const v2 = '[[migrations]]\ntag = "v2"\nnew_sqlite_classes = ["Other"]';
    const first = await wrangler(SMALL, [
      "deploy",
      "--config",
      await place.write("small/v1.toml", config(v1, ["Counter"])),
    ]);
    expect(first.code, first.output).toBe(0);
    const second = await wrangler(SMALL, [
      "deploy",
      "--config",
      await place.write("small/v2.toml", config(`${v1}\n${v2}`, ["Counter", "Other"])),
    ]);
    expect(second.code, second.output).toBe(0);
    const script = api.state.script(SMALL, "small-worker")!;
    expect(script.migrationsApplied).toEqual([
      { oldTag: undefined, newTag: "v1", steps: [{ new_sqlite_classes: ["Counter"] }] },
      { oldTag: "v1", newTag: "v2", steps: [{ new_sqlite_classes: ["Other"] }] },
    ]);
    // Tags renamed in the config: wrangler no longer finds "v2" there and sends every step again.
    const renamed = config(`${v1.replace('"v1"', '"w1"')}\n${v2.replace('"v2"', '"w2"')}`, ["Counter", "Other"]);
    const third = await wrangler(SMALL, ["deploy", "--config", await place.write("small/w.toml", renamed)]);
    expect(third.code).not.toBe(0);
    expect(third.output).toContain("[code: 10074]");
    expect(script.migrationTag).toBe("v2");
    expect(script.migrationsApplied).toHaveLength(2);
  });
});

describe("what Cloudflare would not know", () => {
  it("answers an endpoint it does not serve with a 404 in Cloudflare's envelope and records it", async () => {
    const run = await wrangler(SMALL, ["queues", "list"]);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("No route for that URI [code: 7000]");
    expect(api.violations().map(describeViolation)).toEqual([`GET /accounts/${SMALL}/queues: unknown endpoint`]);
    clearViolations();
  });

  it("records a binding type or metadata field the upload schema does not have, and refuses the unknown type", async () => {
    const form = new FormData();
    form.set(
      "metadata",
      JSON.stringify({
        main_module: "index.js",
        compatibility_date: "2026-11-09",
        bindings: [{ name: "MIND", type: "telepathy" }],
        keep_vars_forever: true,
      }),
    );
    form.set("index.js", new File(["export default {}"], "index.js", { type: "application/javascript+module" }));
    const answer = await direct(`/accounts/${SMALL}/workers/scripts/odd-worker`, { method: "PUT", body: form });
    expect(answer).toMatchObject({ status: 400, body: { success: false, errors: [{ code: 10021 }] } });
    expect(api.violations().map(describeViolation)).toEqual([
      `PUT /accounts/${SMALL}/workers/scripts/odd-worker: unknown field metadata.keep_vars_forever`,
      `PUT /accounts/${SMALL}/workers/scripts/odd-worker: unknown binding type telepathy (binding MIND)`,
    ]);
    clearViolations();
  });
});

describe("how a deploy script tells the plan", () => {
  it("subscriptions list Workers Paid on Paid and nothing on Free, and refuse wrangler login's OAuth token", async () => {
    const paid = await direct(`/accounts/${PAID}/subscriptions`);
    expect(paid.status).toBe(200);
    expect(paid.body.result).toEqual([
      expect.objectContaining({
        state: "Paid",
        price: 5,
        rate_plan: expect.objectContaining({ public_name: "Workers Paid" }),
      }),
    ]);
    expect((await direct(`/accounts/${FREE_CONTAINERS}/subscriptions`)).body.result).toEqual([]);
    expect(await direct(`/accounts/${PAID}/subscriptions`, {}, OAUTH_TOKEN)).toMatchObject({
      status: 403,
      body: { errors: [{ code: 10000, message: "Authentication error" }] },
    });
  });

  it("`wrangler auth token` prints a login's OAuth token, which reads containers/me (Paid or not) and R2 (on or not)", async () => {
    const login = await wranglerPlace();
    try {
      await login.write(
        "home/.config/.wrangler/config/default.toml",
        [
          `oauth_token = "${OAUTH_TOKEN}"`,
          'refresh_token = "fake-refresh-token"',
          'expiration_time = "2099-01-01T00:00:00.000Z"',
          'scopes = ["account:read", "user:read", "workers:write", "workers_kv:write", "workers_scripts:write", "d1:write", "containers:write", "offline_access"]',
        ].join("\n"),
      );
      const printed = await runWrangler(["auth", "token", "--json"], {
        place: login,
        apiUrl: api.url,
        accountId: PAID,
        token: undefined,
      });
      expect(printed.code, printed.output).toBe(0);
      expect(JSON.parse(printed.stdout)).toEqual({ type: "oauth", token: OAUTH_TOKEN });
      const whoami = await runWrangler(["whoami"], {
        place: login,
        apiUrl: api.url,
        accountId: PAID,
        token: undefined,
      });
      expect(whoami.output).toContain("You are logged in with an OAuth Token");
    } finally {
      await login.remove();
    }
    expect(await direct(`/accounts/${PAID}/containers/me`, {}, OAUTH_TOKEN)).toMatchObject({
      status: 200,
      body: { success: true, result: { limits: expect.objectContaining({ total_vcpu: 1500 }) } },
    });
    expect((await direct(`/accounts/${FREE_CONTAINERS}/containers/me`, {}, OAUTH_TOKEN)).status).toBe(401);
    api.state.configure(NO_R2, { r2: true });
    expect((await direct(`/accounts/${NO_R2}/r2/buckets`, {}, OAUTH_TOKEN)).status).toBe(200);
    api.state.configure(NO_R2, { r2: false });
    expect(await direct(`/accounts/${NO_R2}/r2/buckets`, {}, OAUTH_TOKEN)).toMatchObject({
      status: 403,
      body: { errors: [{ code: 10042 }] },
    });
  });
});

describe("/__control, for a fake run in another process", () => {
  it("switches an account, reads the state, the violations and a D1 query, and resets", async () => {
    const control = (path: string, body?: unknown) =>
      fetch(
        `${api.origin}/__control/${path}`,
        body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
      ).then(async (response) => ({ status: response.status, body: (await response.json()) as unknown }));
    expect(await control("account", { id: SMALL, plan: "paid" })).toEqual({ status: 200, body: { ok: true } });
    const state = (await control("state")).body as { id: string; plan: string; scripts: { name: string }[] }[];
    expect(state.find((account) => account.id === SMALL)).toMatchObject({
      plan: "paid",
      scripts: [{ name: "small-worker" }],
    });
    expect(
      (
        await control("query", {
          account: FREE,
          database: "telegram-edge-agent",
          sql: "SELECT count(*) AS n FROM d1_migrations",
        })
      ).body,
    ).toEqual([{ n: expect.any(Number) }]);
    expect((await control("violations")).body).toEqual([]);
    expect(await control("account", { id: SMALL, plan: "platinum" })).toMatchObject({ status: 400 });
    expect(((await control("endpoints")).body as string[]).length).toBe(api.endpoints().length);
    await control("reset", {});
    expect(api.state.script(SMALL, "small-worker")).toBeUndefined();
    expect(api.state.account(SMALL).plan).toBe("free");
  });
});
