import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bot, startBot } from "../../bench/bot.ts";
import { standInModelVars } from "../../scripts/dev-vars.ts";
import {
  type BotApiStandIn,
  PLAYGROUND_CHAT,
  PLAYGROUND_FAMILY_CHAT,
  startBotApiStandIn,
} from "../../scripts/playground/bot-api.ts";
import { STAND_IN_MODEL } from "../../scripts/stand-in-model/replies.ts";
import { type StandInModel, startStandInModel } from "../../scripts/stand-in-model/server.ts";
import { CHROMIUM, HAVE_CHROMIUM } from "./browser.ts";

const ADMIN_TOKEN = "e2e-people-token-0123456789abcdefghijklmn";
const SHOTS = join("test-results", "e2e");

let model: StandInModel;
let standIn: BotApiStandIn;
let bot: Bot;
let browser: Browser;
let page: Page;

/**
 * A person's memory as a new user meets it in the playground (`npm run dev` with no key): told in a private chat,
 * used in the family group, shown and forgotten with /memory, exported and deleted from the console. The Bot API
 * stand-in and the stand-in model, nothing scripted.
 */
describe.skipIf(!HAVE_CHROMIUM)("the playground: people and their memory", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    model = await startStandInModel();
    const botToken = "100000:PLAYGROUND";
    const webhook = { url: "" };
    standIn = await startBotApiStandIn({
      botToken,
      get webhookUrl() {
        return webhook.url;
      },
      webhookSecret: "bench-webhook-secret",
    });
    bot = await startBot("http://127.0.0.1:9", {
      vars: {
        TELEGRAM_BOT_TOKEN: botToken,
        TELEGRAM_API_BASE_URL: standIn.url,
        PLAYGROUND_URL: standIn.url,
        ADMIN_TOKEN,
        ALLOWED_CHAT_IDS: `${PLAYGROUND_CHAT.id},${PLAYGROUND_FAMILY_CHAT.id}`,
        ADMIN_USER_IDS: String(PLAYGROUND_CHAT.id),
        ANTHROPIC_API_KEY: "",
        WEB_SEARCH: "off",
        ...standInModelVars(model.url, STAND_IN_MODEL),
      },
    });
    webhook.url = `${bot.url}/telegram/webhook`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
    await page.goto(`${bot.url}/console/sign-in`);
    await page.fill("#token", ADMIN_TOKEN);
    await page.click("button[type=submit]");
    await page.waitForURL(`${bot.url}/console/chats`);
    await page.goto(`${bot.url}/console/playground`);
  });

  afterAll(async () => {
    await browser?.close();
    await bot?.stop();
    await standIn?.close();
    await model?.close();
  });

  const bots = () => page.locator("#log .bubble.bot");
  const say = async (text: string) => {
    const before = await bots().count();
    await page.fill("#text", text);
    await page.click("#say button[type=submit]");
    await expect.poll(() => bots().count(), { timeout: 30_000 }).toBeGreaterThan(before);
    await expect.poll(() => page.locator("#draft").isHidden(), { timeout: 30_000 }).toBe(true);
  };

  it("what a person says of themselves in private is known in the family group; /memory shows and forgets", async () => {
    await say("I'm vegetarian and my daughter Mia is 7");
    await page.click(`#chats button[data-chat="${PLAYGROUND_FAMILY_CHAT.id}"]`);
    await expect.poll(() => page.locator("#as").isVisible()).toBe(true);
    await page.selectOption("#as", String(PLAYGROUND_CHAT.id));
    await say("@playground_bot suggest a dinner for tonight");
    const answer = (await bots().last().textContent()) ?? "";
    expect(answer).toContain("vegetarian");
    expect(answer).toContain("Mia");
    await page.screenshot({ path: join(SHOTS, "playground-people-group.png") });

    await page.click(`#chats button[data-chat="${PLAYGROUND_CHAT.id}"]`);
    await say("/memory");
    const list = page.locator("#log .bubble.bot:has(.buttons)").last();
    await expect.poll(() => list.textContent(), { timeout: 30_000 }).toContain("vegetarian");
    const listId = await list.getAttribute("data-id");
    const shown = page.locator(`#log .bubble.bot[data-id="${listId}"]`);
    const forget = shown.locator(".buttons button", { hasText: "🗑" }).first();
    await expect.poll(() => forget.count(), { timeout: 15_000 }).toBe(1);
    await forget.click();
    // The list is drawn again without the fact.
    await expect.poll(async () => (await shown.textContent()) ?? "", { timeout: 30_000 }).not.toContain("vegetarian");
  });

  it("the console exports everything kept about the person as one download, and deletes it", async () => {
    await say("I'm vegetarian and my daughter Mia is 7");
    const person = `${bot.url}/console/people/${PLAYGROUND_CHAT.id}`;
    await page.goto(person);
    const exported = await (await page.request.get(`${person}/export`)).text();
    expect(exported).toContain("vegetarian");
    await page.fill("#confirm", String(PLAYGROUND_CHAT.id));
    await page.click("form[action$='/delete'] button[type=submit]");
    await page.waitForLoadState();
    const after = await (await page.request.get(`${person}/export`)).text();
    expect(after).not.toContain("vegetarian");
    await page.screenshot({ path: join(SHOTS, "console-person-deleted.png") });
  });
});
