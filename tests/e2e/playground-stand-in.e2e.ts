import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bot, startBot } from "../../bench/bot.ts";
import { standInModelVars, standInSearchVars } from "../../scripts/dev-vars.ts";
import {
  type BotApiStandIn,
  PLAYGROUND_CHAT,
  PLAYGROUND_CHATS,
  startBotApiStandIn,
} from "../../scripts/playground/bot-api.ts";
import { STAND_IN_MODEL } from "../../scripts/stand-in-model/replies.ts";
import { type StandInModel, startStandInModel } from "../../scripts/stand-in-model/server.ts";
import { type StandInSearch, startStandInSearch } from "../../scripts/stand-in-search/server.ts";
import { CHROMIUM, HAVE_CHROMIUM } from "./browser.ts";

const ADMIN_TOKEN = "e2e-stand-in-token-0123456789abcdefghijk";
const SHOTS = join("test-results", "e2e");
const FOOTER = "Stand-in model: no model key is set";

let model: StandInModel;
let search: StandInSearch;
let standIn: BotApiStandIn;
let bot: Bot;
let browser: Browser;
let page: Page;

/**
 * The playground as `npm run dev` sets it up on a fresh clone with no key at all: the Bot API stand-in, the stand-in
 * model and the stand-in search, with the variables scripts/dev.ts gives the Worker for them (scripts/dev-vars.ts).
 * Nothing here is scripted: every answer is the stand-in model's, through the bot's real tools.
 */
describe.skipIf(!HAVE_CHROMIUM)("the playground with no key: the stand-in model and the stand-in search", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    model = await startStandInModel();
    search = await startStandInSearch();
    const botToken = "100000:PLAYGROUND";
    const webhook = { url: "" };
    standIn = await startBotApiStandIn({
      botToken,
      get webhookUrl() {
        return webhook.url;
      },
      webhookSecret: "bench-webhook-secret",
    });
    // No upstream of the benchmark's fakes is used: the model and the search are the stand-ins, Anthropic has no key.
    bot = await startBot("http://127.0.0.1:9", {
      vars: {
        TELEGRAM_BOT_TOKEN: botToken,
        TELEGRAM_API_BASE_URL: standIn.url,
        PLAYGROUND_URL: standIn.url,
        ADMIN_TOKEN,
        // Your chat and your friend's (allowed here, so that its first message is the locker code).
        ALLOWED_CHAT_IDS: PLAYGROUND_CHATS.map((chat) => chat.id).join(","),
        ADMIN_USER_IDS: String(PLAYGROUND_CHAT.id),
        ANTHROPIC_API_KEY: "",
        ...standInModelVars(model.url, STAND_IN_MODEL),
        ...standInSearchVars(search, {}),
      },
    });
    webhook.url = `${bot.url}/telegram/webhook`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 900, height: 900 } });
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
    await search?.close();
    await model?.close();
  });

  const lastBot = () => page.locator("#log .bubble.bot").last();
  /** Types a message (or says it, with 🎤) and waits for the bot's next message. */
  const say = async (text: string, options: { voice?: boolean } = {}) => {
    const before = await page.locator("#log .bubble.bot").count();
    await page.fill("#text", text);
    await page.click(options.voice ? "#speak" : "#say button[type=submit]");
    await expect.poll(() => page.locator("#log .bubble.bot").count(), { timeout: 30_000 }).toBeGreaterThan(before);
    // The answer is whole once the draft is gone.
    await expect.poll(() => page.locator("#draft").isHidden(), { timeout: 30_000 }).toBe(true);
  };

  it("answers a first message through the stand-in, which says what it is and how to add a key", async () => {
    await say("hello");
    const text = await lastBot().textContent();
    expect(text).toContain("local stand-in model");
    expect(text).toContain(FOOTER);
    expect(text).toContain("OPENAI_API_KEY");
    expect(text).toContain("what's new with the Bot API this week?");
  });

  it("answers what is new with the Bot API from a web search and the page it read, with links", async () => {
    await say("what's new with the Bot API this week?");
    const answer = lastBot();
    await expect.poll(() => answer.textContent(), { timeout: 30_000 }).toContain(FOOTER);
    // web_search's results, as links: the one read first, the others after it; each labelled as the stand-in's.
    const read = answer.locator(`a[href="${search.url}/pages/bot-api-changelog"]`);
    expect(await read.textContent()).toBe("Bot API changelog: the latest releases (stand-in search)");
    expect(await answer.locator(`a[href="${search.url}/pages/about"]`).count()).toBe(1);
    const text = (await answer.textContent()) ?? "";
    expect(text).toContain("I searched the web with web_search (“Bot API news this week”)");
    // Only the page itself says this (web_fetch read it): the result's snippet does not.
    expect(text).toContain("can_stop and keep_on_stop on sendMessageDraft and sendRichMessageDraft");
    await page.screenshot({ path: join(SHOTS, "playground-stand-in-web.png") });
  });

  it("answers a voice note with a voice message and its text, when spoken to", async () => {
    await say("/voice when-spoken-to");
    expect(await lastBot().textContent()).toContain("voice");
    await say("what time is it?", { voice: true });
    // The text first (the stand-in "heard" the note), then the voice message.
    await expect.poll(() => page.locator("#log .bubble.bot audio").count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const player = lastBot().locator("audio");
    await expect
      .poll(() => player.evaluate((audio) => Number(Reflect.get(audio, "duration"))), { timeout: 20_000 })
      .toBeGreaterThan(0);
    const bodies = await page.locator("#log .bubble.bot .body").allTextContents();
    expect(bodies.at(-1)).toContain("You said: “what time is it?”");
    await page.screenshot({ path: join(SHOTS, "playground-stand-in-voice.png") });
    await say("/voice off");
  });

  it("finds what was said in the chat's first message through search_history, with its date and who said it", async () => {
    const friend = PLAYGROUND_CHATS[1].id;
    await page.click(`#chats button[data-chat="${friend}"]`);
    await expect.poll(() => page.locator("#log .bubble").count()).toBe(0);
    await say("my locker code is 4711");
    for (const text of ["the weather is nice today", "show me some code", "the train was late again", "hello"]) {
      await say(text);
    }
    await say("what did I say my locker code was?");
    const answer = lastBot();
    await expect.poll(() => answer.textContent(), { timeout: 30_000 }).toContain(FOOTER);
    const text = (await answer.textContent()) ?? "";
    expect(text).toContain("Found it with search_history (“locker code”)");
    expect(text).toMatch(/on \d{4}-\d{2}-\d{2} at \d{2}:\d{2} \([^)]+\) you said:/);
    expect(await answer.locator("blockquote").textContent()).toContain("my locker code is 4711");
    // The chat's first message: the row the history began with.
    expect(text).toContain("message #1 of this chat's history");
    await page.screenshot({ path: join(SHOTS, "playground-stand-in-history.png") });
  });
});
