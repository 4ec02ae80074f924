import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConsoleBrowser } from "./console-browser.ts";
import {
  ADMIN_TOKEN,
  admin,
  fakes,
  flushUsageNow,
  GROUP_CHAT,
  openaiText,
  PRIVATE_CHAT,
  say,
  settled,
} from "./helpers.ts";

function insertTask(chatId: number, status: "active" | "paused" = "active") {
  const now = Date.now();
  return env.DB.prepare(
    "INSERT INTO tasks (chat_id, created_by_chat, prompt, cron, timezone, status, next_run_at, created_at, updated_at) VALUES (?, ?, 'Water the plants', '0 9 * * *', 'UTC', ?, ?, ?, ?) RETURNING id",
  )
    .bind(chatId, chatId, status, status === "active" ? now + 3_600_000 : null, now, now)
    .first<{ id: number }>();
}

describe("console", () => {
  it("signs in with the admin token into a signed, HttpOnly, Secure, SameSite=Strict cookie, and signs out", async () => {
    const browser = new ConsoleBrowser();
    const before = await browser.get("/console/chats");
    expect(before.status).toBe(303);
    expect(before.headers.get("location")).toBe("/console/sign-in");

    const response = await browser.post("/console/sign-in", { token: ADMIN_TOKEN });
    expect(response.status).toBe(303);
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/Secure/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toContain(ADMIN_TOKEN);
    expect((await browser.get("/console/chats")).status).toBe(200);

    // A forged or tampered cookie is no session.
    const forged = new ConsoleBrowser();
    forged.cookie = browser.cookie?.replace(/v1\.\d+/, `v1.${Date.now() + 10 ** 9}`);
    expect((await forged.get("/console/chats")).status).toBe(303);

    const out = await browser.post("/console/sign-out", {});
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect((await browser.get("/console/chats")).status).toBe(303);
  });

  it("refuses a wrong token, and posts from another origin", async () => {
    const browser = new ConsoleBrowser();
    const wrong = await browser.post("/console/sign-in", { token: "not-the-token" });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("That is not the admin token.");
    expect(browser.cookie).toBeUndefined();

    const crossSite = await browser.post("/console/sign-in", { token: ADMIN_TOKEN }, "https://evil.example");
    expect(crossSite.status).toBe(403);
    expect(browser.cookie).toBeUndefined();

    await browser.signIn();
    const crossSiteChange = await browser.post(
      `/console/chats/${PRIVATE_CHAT}/config`,
      { model: "x" },
      "https://evil.example",
    );
    expect(crossSiteChange.status).toBe(403);
    expect((await admin(`/chats/${PRIVATE_CHAT}/config`)).status).toBe(404);
  });

  it("lists the chats that talked to the bot, with their provider, model and last activity", async () => {
    await fakes.script("openai", openaiText("Hi Ada"));
    await say("Hello", { firstName: "Ada" });
    // The chat's row reaches the directory with its usage, in the object's next D1 flush.
    await settled(PRIVATE_CHAT);
    await flushUsageNow(PRIVATE_CHAT);
    await admin(`/chats/${GROUP_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ model: "gpt-group", enabled: false }),
    });
    const browser = new ConsoleBrowser();
    await browser.signIn();
    await expect
      .poll(async () => (await (await browser.get("/console/chats")).text()).includes("Ada"), { timeout: 10_000 })
      .toBe(true);
    const page = await (await browser.get("/console/chats")).text();
    expect(page).toContain(`href="/console/chats/${PRIVATE_CHAT}"`);
    expect(page).toContain("gpt-test");
    expect(page).toContain("gpt-group");
    expect(page).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });

  it("edits a chat's config through the admin API: a bad value shows its field error, a good one is saved", async () => {
    const browser = new ConsoleBrowser();
    await browser.signIn();
    const bad = await browser.post(`/console/chats/${PRIVATE_CHAT}/config`, {
      model: "gpt-new",
      timezone: "Mars/Olympus",
      "budget.dailyTokens": "lots",
      richMessages: "sometimes",
    });
    expect(bad.status).toBe(400);
    const badPage = await bad.text();
    expect(badPage).toMatch(/data-field-error="timezone"[^>]*>must be an IANA time zone/);
    expect(badPage).toContain('data-field-error="budget.dailyTokens"');
    expect(badPage).toContain('data-field-error="richMessages"');
    expect(badPage).toContain('value="Mars/Olympus"');
    expect((await admin(`/chats/${PRIVATE_CHAT}/config`)).status).toBe(404);

    const good = await browser.post(`/console/chats/${PRIVATE_CHAT}/config`, {
      model: "gpt-new",
      timezone: "Europe/Berlin",
      "budget.dailyTokens": "5000",
      enabled: "no",
      richMessages: "always",
      showSteps: "no",
    });
    expect(good.status).toBe(303);
    expect(good.headers.get("location")).toBe(`/console/chats/${PRIVATE_CHAT}?done=saved`);
    expect(await (await admin(`/chats/${PRIVATE_CHAT}/config`)).json()).toEqual({
      chatId: PRIVATE_CHAT,
      config: {
        model: "gpt-new",
        timezone: "Europe/Berlin",
        budget: { dailyTokens: 5000 },
        enabled: false,
        richMessages: "always",
        showSteps: false,
      },
    });
    const page = await (await browser.get(`/console/chats/${PRIVATE_CHAT}?done=saved`)).text();
    expect(page).toContain("Saved.");
    expect(page).toContain('value="gpt-new"');
  });

  it("pauses, resumes and cancels a chat's task", async () => {
    const task = await insertTask(PRIVATE_CHAT);
    const browser = new ConsoleBrowser();
    await browser.signIn();
    expect(await (await browser.get(`/console/chats/${PRIVATE_CHAT}`)).text()).toContain("Water the plants");

    const paused = await browser.post(`/console/chats/${PRIVATE_CHAT}/tasks/${task!.id}/pause`, {});
    expect(paused.status).toBe(303);
    expect(await env.DB.prepare("SELECT status, next_run_at FROM tasks").first()).toEqual({
      status: "paused",
      next_run_at: null,
    });
    expect((await browser.post(`/console/chats/${PRIVATE_CHAT}/tasks/${task!.id}/pause`, {})).status).toBe(409);

    await browser.post(`/console/chats/${PRIVATE_CHAT}/tasks/${task!.id}/resume`, {});
    const resumed = await env.DB.prepare("SELECT status, next_run_at FROM tasks").first<{
      status: string;
      next_run_at: number;
    }>();
    expect(resumed?.status).toBe("active");
    expect(resumed?.next_run_at).toBeGreaterThan(Date.now());

    // Another chat's task id is not found through this chat.
    expect((await browser.post(`/console/chats/${GROUP_CHAT}/tasks/${task!.id}/cancel`, {})).status).toBe(404);
    await browser.post(`/console/chats/${PRIVATE_CHAT}/tasks/${task!.id}/cancel`, {});
    expect(await env.DB.prepare("SELECT status FROM tasks").first("status")).toBe("cancelled");
  });

  it("draws usage per day and model as an SVG chart, and shows health", async () => {
    const insert = env.DB.prepare(
      "INSERT INTO usage_records (chat_id, kind, provider, model, input_tokens, output_tokens, tool_calls, duration_ms, outcome, cost_usd, created_at) VALUES (?, 'chat', ?, ?, ?, ?, 0, 100, 'ok', ?, ?)",
    );
    const now = Date.now();
    await env.DB.batch([
      insert.bind(PRIVATE_CHAT, "openai", "gpt-a", 1000, 200, 0.5, now),
      insert.bind(PRIVATE_CHAT, "anthropic", "claude-b", 300, 30, 0.25, now - 86_400_000),
    ]);
    const browser = new ConsoleBrowser();
    await browser.signIn();
    const page = await (await browser.get("/console/usage")).text();
    expect(page).toContain('data-chart="tokens" data-max="1200"');
    expect(page).toContain('data-chart="cost" data-max="0.5"');
    expect(page.match(/<rect class="bar"/g)).toHaveLength(4);
    expect(page).toContain("openai/gpt-a");

    const daily = (await (await admin(`/usage/daily?days=2&chatId=${PRIVATE_CHAT}`)).json()) as { days: unknown[] };
    expect(daily.days).toHaveLength(2);

    const health = await (await browser.get("/console/health")).text();
    expect(health).toContain('data-health="ok"');
  });

  it("has no playground unless npm run dev started the Bot API stand-in (PLAYGROUND_URL)", async () => {
    const browser = new ConsoleBrowser();
    expect((await browser.get("/console/playground")).status).toBe(303);
    await browser.signIn();
    expect((await browser.get("/console/playground")).status).toBe(404);
    expect((await browser.get("/console/playground/app.js")).status).toBe(404);
    expect(await (await browser.get("/console/chats")).text()).not.toContain("Playground");
  });
});
