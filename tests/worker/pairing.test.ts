import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AccessStore } from "../../src/access/access-store.ts";
import { pairingAccessOf } from "../../src/access/pairing-access.ts";
import { setupCodeOf } from "../../src/access/setup-code.ts";
import { pairText } from "../../src/commands/pairing.ts";
import { readSettings, type Settings } from "../../src/config/settings.ts";
import type { ChatStores } from "../../src/store/chat-stores.ts";
import { TelegramClient } from "../../src/telegram/client.ts";
import type { IncomingMessage } from "../../src/telegram/incoming-message.ts";
import type { InboxEntry } from "../../src/turn/inbox-entries.ts";
import { ConsoleBrowser } from "./console-browser.ts";
import {
  admin,
  fakes,
  GROUP_CHAT,
  openaiText,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
  session,
  textUpdate,
} from "./helpers.ts";

const NEWCOMER = 7007;
const NEW_GROUP = -7008;
const CODE = /(?:`|<code>)([A-Z2-9]{4}-[A-Z2-9]{4})/;

/** What /pair works with in a chat's object: its state, and the access record in the test's KV. */
function pairingContext(settings: Settings, stores: ChatStores<InboxEntry>) {
  const telegram = new TelegramClient({ botToken: settings.botToken ?? "", apiBaseUrl: settings.telegramApiBaseUrl });
  return { settings, stores, now: Date.now, pairing: pairingAccessOf(env.CONFIG, telegram, Date.now) };
}

async function pairingCode(chatId: number, options: { chatType?: "group"; count?: number } = {}): Promise<string> {
  const asked = await say("/pair", { chatId, ...options, ...(chatId < 0 ? { fromId: NEWCOMER } : {}) });
  const code = CODE.exec(sentText(asked))?.[1];
  expect(code, sentText(asked)).toBeDefined();
  return code!;
}

describe("pairing", () => {
  it("a stranger pairs with /pair, an admin approves with /approve, and the chat gets answers; revoking ends it", async () => {
    const notice = await say("hello?", { chatId: NEWCOMER });
    expect(sentText(notice)).toContain("Send /pair to ask for access");
    expect(await fakes.requests("openai")).toHaveLength(0);

    const code = await pairingCode(NEWCOMER, { count: 2 });
    // Asking again while the code is valid gives the same code.
    expect(await pairingCode(NEWCOMER, { count: 3 })).toBe(code);
    const access = (await (await admin("/access")).json()) as { pending: { code: string; chatId: number }[] };
    expect(access.pending).toEqual([expect.objectContaining({ code, chatId: NEWCOMER })]);

    // Not an admin: refused. The admin's private chat (1001): approved, and the newcomer is told.
    const refused = await say(`/approve ${code}`, { chatId: 1002 });
    expect(sentText(refused)).toContain("Only the bot's admins");
    const approved = await say(`/approve ${code.toLowerCase()}`, { chatId: PRIVATE_CHAT });
    expect(sentText(approved)).toContain(`Approved`);
    expect(sentText(approved)).toContain(String(NEWCOMER));
    const told = await fakes.wait("telegram", { method: "sendMessage", chatId: NEWCOMER, count: 4 });
    expect(sentText(told[3])).toContain("may now talk to the bot");
    expect((await (await admin("/access")).json()) as unknown).toMatchObject({
      pending: [],
      chats: [expect.objectContaining({ chatId: NEWCOMER, approvedBy: `user ${PRIVATE_CHAT}` })],
    });

    await fakes.script("openai", openaiText("Welcome!"));
    const answer = await say("hello again", { chatId: NEWCOMER, count: 5 });
    expect(sentText(answer)).toBe("Welcome!");

    // A used code approves nothing twice.
    expect((await admin(`/access/pairings/${code}/approve`, { method: "POST" })).status).toBe(404);

    expect((await admin(`/access/chats/${NEWCOMER}`, { method: "DELETE" })).status).toBe(204);
    expect((await admin(`/access/chats/${NEWCOMER}`, { method: "DELETE" })).status).toBe(404);
    await postUpdate(textUpdate("still there?", { chatId: NEWCOMER }));
    await expect
      .poll(async () => runInDurableObject(session(NEWCOMER), (instance) => instance.stores.inbox.hasPending()))
      .toBe(false);
    expect(await fakes.requests("openai")).toHaveLength(1);
  });

  it("a group pairs too, approved in the console through the admin API", async () => {
    const code = await pairingCode(NEW_GROUP, { chatType: "group" });
    const browser = new ConsoleBrowser();
    await browser.signIn();
    const page = await (await browser.get("/console/access")).text();
    expect(page).toContain(`data-code="${code}"`);
    const approve = await browser.post(`/console/access/pairings/${code}/approve`, {});
    expect(approve.status).toBe(303);
    const after = await (await browser.get("/console/access?done=approve")).text();
    expect(after).toContain("Approved:");
    expect(after).toContain(`data-chat="${NEW_GROUP}"`);
    expect(after).not.toContain(`data-code="${code}"`);

    const revoke = await browser.post(`/console/access/chats/${NEW_GROUP}/revoke`, {});
    expect(revoke.status).toBe(303);
    expect(await new AccessStore(env.CONFIG).read()).toEqual({ chats: {}, admins: {} });
    // A chat in ALLOWED_CHAT_IDS cannot be revoked here: it is configuration.
    const configured = await browser.post(`/console/access/chats/${GROUP_CHAT}/revoke`, {});
    expect(configured.status).toBe(404);
  });

  it("makes the first private chat with the setup code the owner, only while no admin exists", async () => {
    const settings = readSettings({ ...env, ADMIN_USER_IDS: "" });
    const message = (text: string, chatId = NEWCOMER): IncomingMessage => ({
      updateId: 1,
      messageId: 1,
      chat: { id: chatId, type: "private", isForum: false },
      from: { id: chatId, name: "Owner" },
      text,
      date: 1,
      command: { name: "pair", args: text.replace(/^\/pair\s*/, "") },
    });
    const pair = (text: string, chatId = NEWCOMER) =>
      runInDurableObject(session(chatId), (instance) => {
        return pairText(pairingContext(settings, instance.stores), message(text, chatId));
      });

    expect(await pair("/pair")).toContain("Send `/pair <setup code>`");
    expect(await pair("/pair WRONG-CODE")).toContain("That is not the setup code");
    const setupCode = await setupCodeOf("test-webhook-secret");
    expect(await pair(`/pair ${setupCode.toLowerCase()}`)).toContain("You are this bot's owner");
    const record = await new AccessStore(env.CONFIG).read();
    expect(Object.keys(record.admins)).toEqual([String(NEWCOMER)]);
    expect(Object.keys(record.chats)).toEqual([String(NEWCOMER)]);

    // One-time: with an owner, the code opens nothing for anyone else.
    expect(await pair(`/pair ${setupCode}`, 7010)).toContain("already has an owner");
    expect(await pair("/pair", 7010)).not.toContain("setup code");
  });

  it("stops guessing the setup code after five wrong tries an hour", async () => {
    const settings = readSettings({ ...env, ADMIN_USER_IDS: "" });
    const setupCode = await setupCodeOf("test-webhook-secret");
    const answers = await runInDurableObject(session(NEWCOMER), async (instance) => {
      const pairing = pairingContext(settings, instance.stores);
      const results: string[] = [];
      for (const code of ["AAAA-AAAA", "BBBB-BBBB", "CCCC-CCCC", "DDDD-DDDD", "EEEE-EEEE", setupCode]) {
        results.push(
          await pairText(pairing, {
            updateId: 1,
            messageId: 1,
            chat: { id: NEWCOMER, type: "private", isForum: false },
            from: { id: NEWCOMER, name: "Guesser" },
            text: `/pair ${code}`,
            date: 1,
            command: { name: "pair", args: code },
          }),
        );
      }
      return results;
    });
    expect(answers.at(-1)).toContain("Too many wrong codes");
    expect(await new AccessStore(env.CONFIG).read()).toEqual({ chats: {}, admins: {} });
  });
});
