import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAYGROUND_CHAT, PLAYGROUND_FAMILY_CHAT, PLAYGROUND_GUEST_CHAT } from "../../scripts/playground/bot-api.ts";
import { HAVE_CHROMIUM } from "./browser.ts";
import { type PlaygroundSession, SHOTS, startPlaygroundSession } from "./playground-session.ts";

const ADMIN_TOKEN = "e2e-widgets-token-0123456789abcdefghijklm";

/**
 * Widgets, questions with buttons and ephemeral replies as a new user meets them in the playground (`npm run dev`
 * with no key): the Bot API stand-in, the stand-in model, nothing scripted.
 */
describe.skipIf(!HAVE_CHROMIUM)("the playground's widgets, questions and private replies", () => {
  let session: PlaygroundSession;
  let page: Page;
  beforeAll(async () => {
    session = await startPlaygroundSession(ADMIN_TOKEN);
    page = session.page;
  });
  afterAll(async () => {
    await session?.close();
  });
  const bots = () => session.bots();
  const say = (text: string) => session.say(text);

  it("a packing checklist is a widget in a sandboxed frame, whose ticks the bot keeps through a reload", async () => {
    await say("make me a packing checklist for a weekend trip");
    const frame = page.locator("iframe.widget").last();
    await expect.poll(() => frame.count(), { timeout: 30_000 }).toBe(1);
    expect(await frame.getAttribute("sandbox")).toBe("allow-scripts");
    const widget = page.frameLocator("iframe.widget").last();
    await widget.locator("label", { hasText: "Sleeping bag" }).click();
    await expect
      .poll(() => widget.locator("label.on").allTextContents(), { timeout: 15_000 })
      .toEqual(["☑ Sleeping bag"]);
    await widget.locator("label", { hasText: "Headlamp" }).click();
    await expect.poll(() => widget.locator("label.on").count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => widget.locator("p").textContent()).toBe("2 of 6 done");
    await page.screenshot({ path: join(SHOTS, "playground-widget.png") });

    // No network inside: the frame's policy refuses a fetch.
    const refused = await page
      .frames()
      .find((each) => each.url().includes("/console/playground/frame/"))!
      .evaluate(() =>
        fetch("/console/playground/state")
          .then(() => "fetched")
          .catch(() => "refused"),
      );
    expect(refused).toBe("refused");

    await page.reload();
    const again = page.frameLocator("iframe.widget").last();
    await expect
      .poll(() => again.locator("label.on").allTextContents(), { timeout: 30_000 })
      .toEqual(["☑ Sleeping bag", "☑ Headlamp"]);
  });

  it("a question with buttons: a tap continues the conversation; a stale button is answered privately", async () => {
    await say("help me choose between these three laptops");
    const asked = page.locator("#log .bubble.bot:has(.buttons)", { hasText: "Which laptop matters most to you?" });
    await expect.poll(() => asked.count(), { timeout: 30_000 }).toBe(1);
    const messageId = Number(await asked.getAttribute("data-id"));
    const question = page.locator(`#log .bubble.bot[data-id="${messageId}"]`);
    expect(await question.locator(".buttons button").count()).toBe(3);
    const before = await bots().count();
    await question.locator(".buttons button", { hasText: "ThinkPad X1" }).click();
    await expect.poll(() => bots().last().textContent(), { timeout: 30_000 }).toContain("You chose ThinkPad X1");
    expect(await bots().count()).toBeGreaterThan(before);
    // The question now says what was chosen, without buttons.
    await expect.poll(() => question.textContent(), { timeout: 15_000 }).toContain("✅ ThinkPad X1");
    expect(await question.locator(".buttons button").count()).toBe(0);

    // A press of a button that is no longer there (an old copy of the question): answered to the presser alone.
    await page.evaluate(
      (id) =>
        fetch("/console/playground/press", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ chat: "100001", messageId: id, data: "ask:aaaaaaaaaa:0" }),
        }),
      messageId,
    );
    const ephemeral = page.locator("#log .bubble.ephemeral").last();
    await expect.poll(() => ephemeral.count(), { timeout: 30_000 }).toBe(1);
    expect(await ephemeral.textContent()).toContain("That question has expired or was already answered.");
    expect(await ephemeral.textContent()).toContain("only you can see this");
    await page.screenshot({ path: join(SHOTS, "playground-question.png") });
  });

  it("in the group the same two requests arrive as messages, once each: no widget, no buttons", async () => {
    await page.click(`#chats button[data-chat="${PLAYGROUND_GUEST_CHAT.id}"]`);
    await expect.poll(() => page.locator("#as").isVisible()).toBe(true);
    await page.selectOption("#as", String(PLAYGROUND_CHAT.id));
    await say("@playground_bot make me a packing checklist for a weekend trip");
    await say("@playground_bot help me choose between these three laptops");
    const fromBot = session.standIn.messages(PLAYGROUND_GUEST_CHAT.id).filter((message) => message.from === "bot");
    expect(fromBot).toHaveLength(2);
    expect(fromBot[0]!.text).toContain("Sleeping bag");
    expect(fromBot[1]!.text).toContain("ThinkPad X1");
    expect(fromBot.every((message) => message.widget === undefined && message.buttons.length === 0)).toBe(true);
    expect(await page.locator("iframe.widget").count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, "playground-group-widgets.png") });
  });

  it("in the family group (the bot is in it) the checklist arrives as one message and the question as buttons", async () => {
    await page.click(`#chats button[data-chat="${PLAYGROUND_FAMILY_CHAT.id}"]`);
    await expect.poll(() => page.locator("#as").isVisible()).toBe(true);
    await page.selectOption("#as", String(PLAYGROUND_CHAT.id));
    await say("@playground_bot make me a packing checklist for a weekend trip");
    const lists = () =>
      session.standIn
        .messages(PLAYGROUND_FAMILY_CHAT.id)
        .filter(
          (message) =>
            message.from === "bot" && message.text.includes("Sleeping bag") && !message.text.includes("show_widget"),
        );
    await expect.poll(() => lists().length, { timeout: 30_000 }).toBe(1);
    expect(await page.locator("iframe.widget").count()).toBe(0);

    await say("@playground_bot help me choose between these three laptops");
    const asked = page.locator("#log .bubble.bot:has(.buttons)", { hasText: "Which laptop matters most to you?" });
    await expect.poll(() => asked.count(), { timeout: 30_000 }).toBe(1);
    await asked.locator(".buttons button", { hasText: "Dell XPS" }).click();
    await expect.poll(() => bots().last().textContent(), { timeout: 30_000 }).toContain("You chose Dell XPS");
    expect(lists()).toHaveLength(1);
    await page.screenshot({ path: join(SHOTS, "playground-family-widgets.png") });
  });
});
