import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConsoleBrowser } from "./console-browser.ts";
import { admin, fakes, openaiText, say } from "./helpers.ts";

interface SettingRow {
  name: string;
  kind: string;
  source: string;
  default: string;
  value?: string;
  set?: boolean;
}

async function settings(): Promise<{ plan: string; settings: SettingRow[]; problems: string[] }> {
  const response = await admin("/settings");
  expect(response.status).toBe(200);
  return response.json();
}

const row = async (name: string) => (await settings()).settings.find((knob) => knob.name === name);

const patch = (body: unknown) => admin("/settings", { method: "PATCH", body: JSON.stringify(body) });

/** The system prompt of the last model call. */
async function lastSystemPrompt(): Promise<string> {
  const [call] = (await fakes.requests("openai")).slice(-1);
  const body = call?.body as { messages: { role: string; content: string }[] };
  return body.messages.find((message) => message.role === "system")?.content ?? "";
}

describe("the bot's settings (/admin/settings)", () => {
  it("lists every knob with its kind, default and source, and never a secret's value", async () => {
    const report = await settings();
    expect(report.plan).toBe("paid");
    expect(report.settings.length).toBeGreaterThan(80);
    expect(await row("HISTORY_LIMIT")).toMatchObject({ kind: "setting", source: "default", default: "40" });
    // Set by vitest.config.ts's bindings, as a deployment sets a variable.
    expect(await row("BOT_NAME")).toMatchObject({ kind: "setting", source: "variable", value: "Testbot" });
    expect(await row("OPENAI_BASE_URL")).toMatchObject({ kind: "variable", source: "variable" });
    expect(await row("TELEGRAM_BOT_TOKEN")).toEqual(expect.objectContaining({ kind: "secret", set: true }));
    const text = JSON.stringify(report);
    for (const secret of ["123456:TEST-TOKEN", "test-webhook-secret", "test-openai-key", "test-admin-token"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("a change is kept in KV and used by the next turn, without a redeploy; null puts the default back", async () => {
    const changed = await patch({ DEFAULT_TIMEZONE: "Asia/Tokyo", HISTORY_LIMIT: 6 });
    expect(changed.status).toBe(200);
    expect(await row("DEFAULT_TIMEZONE")).toMatchObject({ source: "console", value: "Asia/Tokyo" });
    expect(await row("HISTORY_LIMIT")).toMatchObject({ source: "console", value: "6" });
    expect(JSON.parse((await env.CONFIG.get("bot-settings")) ?? "{}")).toEqual({
      DEFAULT_TIMEZONE: "Asia/Tokyo",
      HISTORY_LIMIT: "6",
    });

    await fakes.script("openai", openaiText("Konnichiwa."));
    await say("what time is it?");
    expect(await lastSystemPrompt()).toContain("(Asia/Tokyo)");

    expect((await patch({ DEFAULT_TIMEZONE: null, HISTORY_LIMIT: "" })).status).toBe(200);
    expect(await row("DEFAULT_TIMEZONE")).toMatchObject({ source: "default" });
    expect(JSON.parse((await env.CONFIG.get("bot-settings")) ?? "{}")).toEqual({});
  });

  it("refuses a bad value by name with what is wrong, and keeps nothing of the change", async () => {
    const response = await patch({ HISTORY_LIMIT: "1", DEFAULT_TIMEZONE: "Mars/Olympus", WEB_FETCH: "off" });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { details: { field: string; problem: string }[] };
    expect(body.details).toEqual([
      { field: "HISTORY_LIMIT", problem: "HISTORY_LIMIT must be a whole number from 2 to 1000" },
      {
        field: "DEFAULT_TIMEZONE",
        problem: "DEFAULT_TIMEZONE must be an IANA time zone such as Europe/Berlin",
      },
    ]);
    expect(await env.CONFIG.get("bot-settings")).toBeNull();
    expect(await row("WEB_FETCH")).toMatchObject({ source: "default" });
  });

  it("refuses secrets, variables, unknown names and a setting a variable already sets, saying where each is set", async () => {
    const refused = await patch({ OPENAI_API_KEY: "sk-x", OPENAI_BASE_URL: "https://evil.example", NOPE: "1" });
    expect(refused.status).toBe(400);
    const problems = ((await refused.json()) as { details: { problem: string }[] }).details.map((d) => d.problem);
    expect(problems).toEqual([
      expect.stringContaining("OPENAI_API_KEY is a secret: set it with `npx wrangler secret put`"),
      expect.stringContaining("OPENAI_BASE_URL is a deployment's variable"),
      "NOPE is not a setting of this bot",
    ]);
    const pinned = await patch({ BOT_NAME: "Ada" });
    expect(pinned.status).toBe(409);
    expect(await pinned.text()).toContain("BOT_NAME");
    expect(await env.CONFIG.get("bot-settings")).toBeNull();
  });

  it("KV holding something else: /health says so and the variables and defaults apply", async () => {
    await env.CONFIG.put("bot-settings", "[not json");
    const health = (await (await exports.default.fetch("http://bot.test/health")).json()) as { problems: string[] };
    expect(health.problems).toContain("the console's settings in KV are not JSON: variables and defaults apply");
  });
});

describe("the console's Settings page", () => {
  it("shows every group, saves what changed through the admin API, and marks a refused field", async () => {
    const browser = new ConsoleBrowser();
    await browser.signIn();
    const page = await (await browser.get("/console/settings")).text();
    expect(page).toContain("<h2>Limits and prices</h2>");
    expect(page).toMatch(/data-setting="BOT_NAME" data-source="variable"/);
    expect(page).toContain('name="SEARCHES_PER_DAY"');
    expect(page).not.toContain("test-openai-key");

    const saved = await browser.post("/console/settings", { SEARCHES_PER_DAY: "7", SEARCHES_PER_TURN: "" });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe("/console/settings?done=saved");
    expect(await row("SEARCHES_PER_DAY")).toMatchObject({ source: "console", value: "7" });

    const refused = await browser.post("/console/settings", { SEARCHES_PER_DAY: "lots" });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain("SEARCHES_PER_DAY must be a whole number from 0 to 100000");
    expect(html).toContain('value="lots"');
    expect(await row("SEARCHES_PER_DAY")).toMatchObject({ value: "7" });
  });
});
