import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
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
import { CHROMIUM } from "./browser.ts";

export const SHOTS = join("test-results", "e2e");

/** The playground as `npm run dev` sets it up with no key, signed in to the console and on its Playground page. */
export interface PlaygroundSession {
  standIn: BotApiStandIn;
  bot: Bot;
  page: Page;
  /** The bot's bubbles in the log. */
  bots: () => ReturnType<Page["locator"]>;
  /** Types a message in the current chat and waits for the bot's answer to be whole. */
  say: (text: string) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Starts the stand-in model, the Bot API stand-in and the bot (your chat and the family group allowed, you its admin,
 * no search), then signs in to the console in Chromium and opens the playground.
 */
export async function startPlaygroundSession(adminToken: string): Promise<PlaygroundSession> {
  mkdirSync(SHOTS, { recursive: true });
  const model: StandInModel = await startStandInModel();
  const botToken = "100000:PLAYGROUND";
  const webhook = { url: "" };
  const standIn = await startBotApiStandIn({
    botToken,
    get webhookUrl() {
      return webhook.url;
    },
    webhookSecret: "bench-webhook-secret",
  });
  const bot = await startBot("http://127.0.0.1:9", {
    vars: {
      TELEGRAM_BOT_TOKEN: botToken,
      TELEGRAM_API_BASE_URL: standIn.url,
      PLAYGROUND_URL: standIn.url,
      ADMIN_TOKEN: adminToken,
      ALLOWED_CHAT_IDS: `${PLAYGROUND_CHAT.id},${PLAYGROUND_FAMILY_CHAT.id}`,
      ADMIN_USER_IDS: String(PLAYGROUND_CHAT.id),
      ANTHROPIC_API_KEY: "",
      WEB_SEARCH: "off",
      ...standInModelVars(model.url, STAND_IN_MODEL),
    },
  });
  webhook.url = `${bot.url}/telegram/webhook`;
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
  await page.goto(`${bot.url}/console/sign-in`);
  await page.fill("#token", adminToken);
  await page.click("button[type=submit]");
  await page.waitForURL(`${bot.url}/console/chats`);
  await page.goto(`${bot.url}/console/playground`);

  const bots = () => page.locator("#log .bubble.bot");
  const say = async (text: string) => {
    const before = await bots().count();
    await page.fill("#text", text);
    await page.click("#say button[type=submit]");
    await expect.poll(() => bots().count(), { timeout: 30_000 }).toBeGreaterThan(before);
    await expect.poll(() => page.locator("#draft").isHidden(), { timeout: 30_000 }).toBe(true);
  };
  const close = async () => {
    await browser.close();
    await bot.stop();
    await standIn.close();
    await model.close();
  };
  return { standIn, bot, page, bots, say, close };
}
