import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bot, startBot } from "../../bench/bot.ts";
import {
  type BotApiStandIn,
  PLAYGROUND_CHAT,
  PLAYGROUND_CHATS,
  PLAYGROUND_GUEST_CHAT,
  startBotApiStandIn,
} from "../../scripts/playground/bot-api.ts";
import { openaiCompletion } from "../fakes/bodies.ts";
import type { ScriptedResponse } from "../fakes/server.ts";
import { type Fakes, startFakes } from "../fakes/server.ts";
import { CHROMIUM, HAVE_CHROMIUM } from "./browser.ts";

const ADMIN_TOKEN = "e2e-playground-token-0123456789abcdefghij";
const SHOTS = join("test-results", "e2e");

let fakes: Fakes;
let standIn: BotApiStandIn;
let bot: Bot;
let browser: Browser;
let page: Page;

/**
 * The playground as `npm run dev` sets it up without a bot token: the Bot API stand-in, the Worker pointed at it
 * (PLAYGROUND_URL, TELEGRAM_API_BASE_URL), and the person in the page allowed and an admin.
 */
describe.skipIf(!HAVE_CHROMIUM)("the playground in a browser", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    fakes = await startFakes();
    const botToken = "100000:PLAYGROUND";
    const secret = "bench-webhook-secret";
    // The Worker's port is known only once it runs; the stand-in learns the webhook's address then.
    const webhook = { url: "" };
    standIn = await startBotApiStandIn({
      botToken,
      get webhookUrl() {
        return webhook.url;
      },
      webhookSecret: secret,
    });
    bot = await startBot(fakes.url, {
      vars: {
        TELEGRAM_BOT_TOKEN: botToken,
        TELEGRAM_API_BASE_URL: standIn.url,
        PLAYGROUND_URL: standIn.url,
        ADMIN_TOKEN,
        ALLOWED_CHAT_IDS: String(PLAYGROUND_CHAT.id),
        ADMIN_USER_IDS: String(PLAYGROUND_CHAT.id),
        MODEL_CHOICES: "openai:gpt-bench, anthropic:claude-sonnet-4-5",
      },
    });
    webhook.url = `${bot.url}/telegram/webhook`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 900, height: 800 } });
    await page.goto(`${bot.url}/console/sign-in`);
    await page.fill("#token", ADMIN_TOKEN);
    await page.click("button[type=submit]");
    await page.waitForURL(`${bot.url}/console/chats`);
  });

  afterAll(async () => {
    await browser?.close();
    await bot?.stop();
    await standIn?.close();
    await fakes?.close();
  });

  it("is linked from the console; a message typed there is answered, streamed as a draft first", async () => {
    await page.click("header >> text=Playground");
    await page.waitForURL(`${bot.url}/console/playground`);
    const answer = "Hello! I am **streaming** this answer in pieces, as a draft, before it is sent.";
    await fetch(`${fakes.url}/__control/script`, {
      method: "POST",
      body: JSON.stringify({
        service: "openai",
        responses: [{ body: openaiCompletion(answer), stream: { pieces: 12, delayMs: 250 } }],
      }),
    });
    await page.fill("#text", "Hi there");
    await page.click("#say button[type=submit]");
    await expect.poll(() => page.locator("#log .bubble.user").first().textContent()).toContain("Hi there");
    // The draft shows while the answer streams, then the message replaces it.
    await page.locator("#draft:not([hidden])").waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(SHOTS, "playground-draft.png") });
    const reply = page.locator("#log .bubble.bot .body b");
    await reply.waitFor({ timeout: 20_000 });
    expect(await reply.textContent()).toBe("streaming");
    await expect.poll(() => page.locator("#draft").isHidden()).toBe(true);
  });

  it("shows /model's buttons; a press is answered and edits the menu", async () => {
    await page.fill("#text", "/model");
    await page.click("#say button[type=submit]");
    const choice = page.locator("#log .bubble.bot .buttons button", { hasText: "claude-sonnet-4-5" });
    await choice.waitFor({ timeout: 20_000 });
    await choice.click();
    await expect.poll(() => page.locator("#notes").textContent(), { timeout: 20_000 }).toContain("Now anthropic");
    await expect
      .poll(() => page.locator("#log .bubble.bot .buttons button", { hasText: "✓ claude-sonnet-4-5" }).count())
      .toBe(1);
    expect(await page.locator("#log .bubble.bot .meta", { hasText: "edited" }).count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, "playground.png") });
  });

  it("summons the bot as a guest in the group it is not in; a stranger summoning it gets nothing", async () => {
    await page.click(`#chats button[data-chat="${PLAYGROUND_GUEST_CHAT.id}"]`);
    await expect.poll(() => page.locator("#as").isVisible()).toBe(true);
    const say = async (text: string, as: string) => {
      await page.selectOption("#as", as);
      await page.fill("#text", text);
      await page.click("#say button[type=submit]");
    };
    await say("lunch at noon?", String(PLAYGROUND_CHAT.id));
    await say("@playground_bot what is a guest bot?", String(PLAYGROUND_CHAT.id));
    const answer = page.locator("#log .bubble.bot").last();
    await answer.waitFor({ timeout: 20_000 });
    // With your own settings: your chat was moved to Anthropic by /model's button above.
    expect(await answer.locator(".body").textContent()).toContain("Hello from the fake Anthropic API.");
    expect(await answer.locator(".meta").textContent()).toContain("guest, summoned by You");
    // Your friend is not known to the bot yet (paired only in the next test): summoning it gets nothing at all. The
    // webhook refuses such a query before any work is queued, so once the page's post is through, nothing follows.
    const modelCalls = async () =>
      ((await (await fetch(`${fakes.url}/__control/requests?service=openai`)).json()) as unknown[]).length;
    const before = await modelCalls();
    const posted = page.waitForResponse((response) => response.url().endsWith("/console/playground/send"));
    await say("@playground_bot are you there?", String(PLAYGROUND_CHATS[1].id));
    expect((await posted).status()).toBe(200);
    expect(standIn.messages(PLAYGROUND_GUEST_CHAT.id).map((message) => [message.from, message.by])).toEqual([
      ["user", "You"],
      ["user", "You"],
      ["bot", "You"],
      ["user", "A friend"],
    ]);
    expect(await modelCalls()).toBe(before);
    await page.screenshot({ path: join(SHOTS, "playground-guest.png") });
  });

  it("pairs the friend's chat: /pair there, /approve from yours, and the friend gets answers", async () => {
    const friend = PLAYGROUND_CHATS[1].id;
    const say = async (text: string) => {
      await page.fill("#text", text);
      await page.click("#say button[type=submit]");
    };
    const lastBotText = () => page.locator("#log .bubble.bot .body").last().textContent();
    await page.click(`#chats button[data-chat="${friend}"]`);
    await expect.poll(() => page.locator("#log .bubble").count()).toBe(0);
    await say("hello?");
    await expect.poll(lastBotText, { timeout: 20_000 }).toContain("Send /pair to ask for access");
    await say("/pair");
    await expect.poll(lastBotText, { timeout: 20_000 }).toContain("Your pairing code is");
    const code = /[A-Z2-9]{4}-[A-Z2-9]{4}/.exec((await lastBotText()) ?? "")?.[0];
    expect(code).toBeDefined();

    await page.click(`#chats button[data-chat="${PLAYGROUND_CHAT.id}"]`);
    await expect.poll(() => page.locator("#log .bubble.user").first().textContent()).toContain("Hi there");
    await say(`/approve ${code}`);
    await expect.poll(lastBotText, { timeout: 20_000 }).toContain("Approved");

    await page.click(`#chats button[data-chat="${friend}"]`);
    await expect.poll(lastBotText, { timeout: 20_000 }).toContain("may now talk to the bot");
    await say("Thanks! What can you do?");
    // The fake model echoes what it was asked.
    await expect.poll(lastBotText, { timeout: 20_000 }).toContain("What can you do?");
    await page.screenshot({ path: join(SHOTS, "playground-pairing.png") });
  });

  it("plays a spoken answer: /voice always, then the answer's text and a voice message the browser can play", async () => {
    const say = async (text: string) => {
      await page.fill("#text", text);
      await page.click("#say button[type=submit]");
    };
    await page.click(`#chats button[data-chat="${PLAYGROUND_CHAT.id}"]`);
    await say("/voice always");
    await expect
      .poll(() => page.locator("#log .bubble.bot .body").last().textContent(), { timeout: 20_000 })
      .toContain("Every answer now also comes as a voice message");
    await say("Say something");
    const player = page.locator("#log .bubble.bot audio").last();
    await player.waitFor({ timeout: 20_000 });
    // The fake speech endpoint's OGG/Opus, as the bot uploaded it: Chromium reads its length, so it is real audio.
    await expect
      .poll(() => player.evaluate((audio) => Number(Reflect.get(audio, "duration"))), { timeout: 20_000 })
      .toBeGreaterThan(0);
    const src = await player.getAttribute("src");
    expect(src).toMatch(/^\/console\/playground\/voice\/sent-\d+$/);
    const type = await page.evaluate(async (url) => (await fetch(url)).headers.get("content-type"), src!);
    expect(type).toBe("audio/ogg");
    // The text came first: the voice message is the newest bubble, the answer just before it.
    expect(await page.locator("#log .bubble.bot .body").last().textContent()).toContain(
      "Hello from the fake Anthropic API.",
    );
    await page.screenshot({ path: join(SHOTS, "playground-voice.png") });
    await say("/voice off");
    await expect
      .poll(() => page.locator("#log .bubble.bot .body").last().textContent(), { timeout: 20_000 })
      .toContain("Spoken answers are off");
  });

  const script = async (...responses: ScriptedResponse[]) => {
    await fetch(`${fakes.url}/__control/script`, {
      method: "POST",
      body: JSON.stringify({ service: "openai", responses }),
    });
  };
  const say = async (text: string) => {
    await page.fill("#text", text);
    await page.click("#say button[type=submit]");
  };
  const TABLE = "Here you go:\n\n| Fruit | Qty |\n|:--|--:|\n| Apple | 3 |\n| Pear | 12 |\n\n- [x] compared";

  it("shows an answer with a table as a real table, and a 10,000-character answer as one message", async () => {
    // Back to the default provider (the /model test chose Anthropic), whose fake the tests script.
    const reset = await fetch(`${bot.url}/admin/chats/${PLAYGROUND_CHAT.id}/config`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(reset.ok).toBe(true);
    await page.click(`#chats button[data-chat="${PLAYGROUND_CHAT.id}"]`);
    await expect.poll(() => page.locator("#log .bubble.user").first().textContent()).toContain("Hi there");
    await script({ body: openaiCompletion(TABLE), stream: { pieces: 8, delayMs: 150 } });
    await say("Compare the fruit");
    const table = page.locator("#log .bubble.bot table").last();
    await table.waitFor({ timeout: 20_000 });
    expect(await table.locator("th").allTextContents()).toEqual(["Fruit", "Qty"]);
    expect(await table.locator("td").allTextContents()).toEqual(["Apple", "3", "Pear", "12"]);
    expect(await page.locator("#log .bubble.bot").last().locator("input[type=checkbox]").isChecked()).toBe(true);
    await page.screenshot({ path: join(SHOTS, "playground-rich.png") });

    const long = Array.from({ length: 100 }, (_, index) => `Paragraph ${index}: ${"word ".repeat(19)}`).join("\n\n");
    await script({ body: openaiCompletion(long) });
    await say("Write a lot");
    await expect
      .poll(() => page.locator("#log .bubble.bot").last().textContent(), { timeout: 20_000 })
      .toContain("Paragraph 99:");
    // The table's answer and the long one: one message each, the long one whole.
    expect(await page.locator("#log .bubble.bot", { hasText: "Pear" }).count()).toBe(1);
    expect(await page.locator("#log .bubble.bot", { hasText: "Paragraph" }).count()).toBe(1);
    expect(await page.locator("#log .bubble.bot").last().textContent()).toContain("Paragraph 0:");
  });

  it("shows a private answer's tool step in a thinking block; the draft's stop control ends the turn", async () => {
    await script(
      { body: openaiCompletion(null, { toolCalls: [{ name: "remember", arguments: { fact: "I like pears" } }] }) },
      { body: openaiCompletion("Done."), delayMs: 15_000 },
    );
    await say("Remember that I like pears");
    const thinking = page.locator("#draft .thinking");
    await thinking.waitFor({ timeout: 20_000 });
    expect(await thinking.textContent()).toContain("remember");
    await page.screenshot({ path: join(SHOTS, "playground-thinking.png") });
    await page.click("#draft button.stop");
    await expect
      .poll(() => page.locator("#log .bubble.bot .body").last().textContent(), { timeout: 20_000 })
      .toContain("Stopped.");
    await expect.poll(() => page.locator("#draft").isHidden()).toBe(true);
  });

  it("with rich messages refused, gives the same answer as Telegram HTML, once", async () => {
    await page.uncheck("#rich");
    await expect.poll(() => page.locator("#rich").isChecked()).toBe(false);
    await script({ body: openaiCompletion(TABLE.replace("Pear", "Plum")) });
    await say("Compare the fruit again");
    const pre = page.locator("#log .bubble.bot pre").last();
    await pre.waitFor({ timeout: 20_000 });
    expect(await pre.textContent()).toMatch(/Fruit\s+\| Qty/);
    expect(await page.locator("#log .bubble.bot", { hasText: "Plum" }).count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, "playground-html-fallback.png") });
    await page.check("#rich");
  });

  it("talks to the bot only with a signed-in console", async () => {
    const response = await fetch(`${bot.url}/console/playground/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "let me in" }),
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    expect(standIn.messages(PLAYGROUND_CHAT.id).some((message) => message.text === "let me in")).toBe(false);
  });
});
