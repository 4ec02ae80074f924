import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAYGROUND_CHAT, PLAYGROUND_FAMILY_CHAT } from "../../scripts/playground/bot-api.ts";
import { HAVE_CHROMIUM } from "./browser.ts";
import { type PlaygroundSession, SHOTS, startPlaygroundSession } from "./playground-session.ts";

const ADMIN_TOKEN = "e2e-people-token-0123456789abcdefghijklmn";

/**
 * A person's memory as a new user meets it in the playground (`npm run dev` with no key): told in a private chat,
 * used in the family group, shown and forgotten with /memory, exported and deleted from the console. The Bot API
 * stand-in and the stand-in model, nothing scripted.
 */
describe.skipIf(!HAVE_CHROMIUM)("the playground: people and their memory", () => {
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
    const person = `${session.bot.url}/console/people/${PLAYGROUND_CHAT.id}`;
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
