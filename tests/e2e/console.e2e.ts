import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bot, startBot } from "../../bench/bot.ts";
import { openaiCompletion } from "../fakes/bodies.ts";
import { type Fakes, startFakes } from "../fakes/server.ts";
import { CHROMIUM, HAVE_CHROMIUM } from "./browser.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789abcdefghij";
const CHAT = 4242;
/** Each page's screenshot, saved by the run (docs/console.png is the chats page of one such run). */
const SHOTS = join("test-results", "e2e");

let fakes: Fakes;
let bot: Bot;
let browser: Browser;
let page: Page;

async function script(service: "openai", ...responses: { body: unknown }[]): Promise<void> {
  await fetch(`${fakes.url}/__control/script`, { method: "POST", body: JSON.stringify({ service, responses }) });
}

async function waitFor(service: string, method: string, chatId: number, count: number): Promise<void> {
  const query = new URLSearchParams({
    service,
    method,
    chatId: String(chatId),
    count: String(count),
    timeout: "30000",
  });
  const response = await fetch(`${fakes.url}/__control/wait?${query}`);
  if (response.status !== 200) throw new Error(`timed out waiting for ${count} ${service} ${method}`);
}

async function say(text: string, updateId: number): Promise<void> {
  const response = await fetch(`${bot.url}/telegram/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": bot.secret },
    body: JSON.stringify({
      update_id: updateId,
      message: {
        message_id: updateId,
        date: Math.floor(Date.now() / 1000),
        chat: { id: CHAT, type: "private", first_name: "Ada" },
        from: { id: CHAT, is_bot: false, first_name: "Ada" },
        text,
      },
    }),
  });
  expect(response.status).toBe(200);
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

describe.skipIf(!HAVE_CHROMIUM)("the console in a browser", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    fakes = await startFakes();
    bot = await startBot(fakes.url, {
      vars: {
        ADMIN_TOKEN,
        ALLOWED_CHAT_IDS: String(CHAT),
        ADMIN_USER_IDS: String(CHAT),
        ADMIN_CHAT_IDS: String(CHAT),
        // Usage reaches D1 at once, so the chart has data as soon as the chat was answered.
        USAGE_FLUSH_SECONDS: "0",
        MODEL_PRICES: JSON.stringify({ "gpt-bench": { input: 2.5, output: 10 } }),
      },
    });
    // A conversation with usage, and a scheduled task to pause.
    await script(
      "openai",
      {
        body: openaiCompletion(null, {
          toolCalls: [{ name: "schedule_task", arguments: { prompt: "Morning briefing", cron: "0 9 * * *" } }],
          usage: { prompt_tokens: 1200, completion_tokens: 300 },
        }),
      },
      { body: openaiCompletion("Done: every day at 9.", { usage: { prompt_tokens: 1500, completion_tokens: 80 } }) },
    );
    await say("Brief me every morning at 9", 1);
    // An answer that used a tool, in a private chat: a rich message ending with its steps.
    await waitFor("telegram", "sendRichMessage", CHAT, 1);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await bot?.stop();
    await fakes?.close();
  });

  it("refuses a wrong token and keeps the console closed", async () => {
    await page.goto(`${bot.url}/console/chats`);
    await expect.poll(() => new URL(page.url()).pathname).toBe("/console/sign-in");
    await page.fill("#token", "not-the-token");
    await page.click("button[type=submit]");
    expect(await page.textContent("body")).toContain("That is not the admin token.");
    await shot("sign-in");
  });

  it("signs in with the admin token and lists the chat that talked to the bot", async () => {
    await page.fill("#token", ADMIN_TOKEN);
    await page.click("button[type=submit]");
    await page.waitForURL(`${bot.url}/console/chats`);
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.httpOnly && cookie.sameSite === "Strict")).toBeDefined();
    expect(await page.textContent("main")).toContain("Ada");
    await shot("chats");
  });

  it("shows a bad config value inline, then saves a good one", async () => {
    await page.goto(`${bot.url}/console/chats/${CHAT}`);
    await page.fill("#timezone", "Mars/Olympus_Mons");
    await page.click("form[action$='/config'] button[type=submit]");
    const problem = page.locator("[data-field-error=timezone]");
    await expect.poll(() => problem.count()).toBe(1);
    expect(await page.getAttribute("#timezone", "aria-invalid")).toBe("true");
    await shot("chat-invalid");

    await page.fill("#timezone", "Europe/Berlin");
    await page.fill("#model", "gpt-4.1");
    await page.click("form[action$='/config'] button[type=submit]");
    await page.waitForURL(/done=saved/);
    expect(await page.locator("[data-field-error]").count()).toBe(0);
    expect(await page.inputValue("#timezone")).toBe("Europe/Berlin");
    const config = await fetch(`${bot.url}/admin/chats/${CHAT}/config`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await config.json()).toMatchObject({ config: { timezone: "Europe/Berlin", model: "gpt-4.1" } });
  });

  it("pauses a task", async () => {
    const row = page.locator("tr[data-task]");
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator("[data-status]").textContent()).toBe("active");
    await row.locator("button", { hasText: "Pause" }).click();
    await page.waitForURL(/done=pause/);
    expect(await page.locator("tr[data-task] [data-status]").textContent()).toBe("paused");
    await shot("chat");
  });

  it("draws the usage chart with the chat's tokens", async () => {
    await page.goto(`${bot.url}/console/usage`);
    const chart = page.locator("svg[data-chart=tokens]");
    expect(Number(await chart.getAttribute("data-max"))).toBe(1200 + 300 + 1500 + 80);
    expect(await chart.locator("rect.bar").count()).toBeGreaterThan(0);
    await shot("usage");
  });

  it("shows health and access", async () => {
    await page.goto(`${bot.url}/console/health`);
    expect(await page.locator("[data-health]").count()).toBe(1);
    await shot("health");
    await page.goto(`${bot.url}/console/access`);
    expect(await page.textContent("main")).toContain("ALLOWED_CHAT_IDS");
    await shot("access");
  });

  it("fits a phone's screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${bot.url}/console/chats`);
    // Runs in the page: the document is wider than the screen when something does not fit.
    const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    await shot("chats-phone");
    await page.setViewportSize({ width: 1100, height: 800 });
  });

  it("signs out, and the console is closed again", async () => {
    await page.goto(`${bot.url}/console/chats`);
    await page.click("text=Sign out");
    await page.waitForURL(`${bot.url}/console/sign-in`);
    await page.goto(`${bot.url}/console/chats`);
    await expect.poll(() => new URL(page.url()).pathname).toBe("/console/sign-in");
  });
});
