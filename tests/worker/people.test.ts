import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/database.ts";
import { MemoryRepository } from "../../src/memory/memory-repository.ts";
import { canSee, type MemoryAudience } from "../../src/memory/visibility.ts";
import type { RecordedRequest } from "../fakes/server.ts";
import { ConsoleBrowser } from "./console-browser.ts";
import {
  admin,
  buttonPress,
  fakes,
  GROUP_CHAT,
  OTHER_PRIVATE_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  post,
  postUpdate,
  say,
  sentText,
  session,
  settled,
  storedHistory,
  textUpdate,
} from "./helpers.ts";

const ADA = PRIVATE_CHAT;
const BO = OTHER_PRIVATE_CHAT;

const systemOf = (request: RecordedRequest) =>
  (request.body as { messages: { role: string; content: string }[] }).messages[0]!.content;
const bodyText = (request: RecordedRequest) => JSON.stringify(request.body);

/** A message to the bot, waiting until the model has been asked `calls` more times and the chat has settled. */
async function tell(text: string, options: { chatId: number; fromId: number; firstName: string }, calls = 1) {
  const before = (await fakes.requests("openai")).length;
  await post(textUpdate(text, options));
  const requests = await fakes.wait("openai", { count: before + calls });
  await settled(options.chatId);
  return requests.slice(before);
}

describe("a memory of each person", () => {
  it("what Ada tells in private reaches the family group when she speaks there; Bo's private facts never do", async () => {
    const ada = { chatId: ADA, fromId: ADA, firstName: "Ada" };
    const bo = { chatId: BO, fromId: BO, firstName: "Bo" };
    await fakes.script(
      "openai",
      openaiToolCalls([
        { name: "remember", arguments: { fact: "Ada is vegetarian.", scope: "person" } },
        { name: "remember", arguments: { fact: "Ada's daughter Mia is 7.", scope: "person" } },
      ]),
      openaiText("Noted."),
    );
    await tell("I'm vegetarian and my daughter Mia is 7", ada, 2);

    await fakes.script(
      "openai",
      openaiToolCalls([
        { name: "remember", arguments: { fact: "Bo is planning a surprise party for Ada.", scope: "private" } },
        { name: "remember", arguments: { fact: "Bo is allergic to peanuts.", scope: "person" } },
      ]),
      openaiText("Noted."),
    );
    await tell("I'm planning a surprise party for Ada, and I'm allergic to peanuts", bo, 2);
    const stored = await env.DB.prepare("SELECT content, about_user, private, chat_id FROM memories ORDER BY id").all();
    expect(stored.results).toEqual([
      { content: "Ada is vegetarian.", about_user: ADA, private: 0, chat_id: ADA },
      { content: "Ada's daughter Mia is 7.", about_user: ADA, private: 0, chat_id: ADA },
      { content: "Bo is planning a surprise party for Ada.", about_user: BO, private: 1, chat_id: BO },
      { content: "Bo is allergic to peanuts.", about_user: BO, private: 0, chat_id: BO },
    ]);

    // Ada in the family group: the model knows who she is (id and name) and both her facts; nothing of Bo's.
    const [dinner] = await tell("@testbot suggest a dinner for tonight", { ...ada, chatId: GROUP_CHAT });
    const system = systemOf(dinner!);
    expect(system).toContain(`"Ada" (user id ${ADA})`);
    expect(system).toContain("Ada is vegetarian.");
    expect(system).toContain("Ada's daughter Mia is 7.");
    expect(bodyText(dinner!)).not.toMatch(/surprise party|peanuts/);

    // Bo in the group: his shared fact, never his private one; Ada's facts only while she speaks.
    const [dessert] = await tell("@testbot and a dessert?", { ...bo, chatId: GROUP_CHAT });
    expect(systemOf(dessert!)).toContain("Bo is allergic to peanuts.");
    expect(systemOf(dessert!)).not.toContain("vegetarian");
    // Nothing the group's model was ever asked holds Bo's private fact; Ada's private chat never holds Bo's facts.
    const all = await fakes.requests("openai");
    const groupBodies = all.filter((request) => bodyText(request).includes("Test group")).map(bodyText);
    expect(groupBodies).toHaveLength(2);
    for (const body of groupBodies) expect(body).not.toContain("surprise party");
    const [later] = await tell("what do you know about me?", ada);
    expect(bodyText(later!)).not.toMatch(/peanuts|surprise party/);
    expect(systemOf(later!)).toContain("Ada is vegetarian.");
  });

  it("a fact said in a group belongs to that group, and a private one stays where it was said", async () => {
    const memories = new MemoryRepository(database(env));
    const add = (chatId: number, aboutUser: number | null, isPrivate = false) =>
      memories.add({
        chatId,
        content: `fact ${chatId}/${aboutUser}/${isPrivate}`,
        createdBy: aboutUser,
        createdAt: 1,
        outside: null,
        aboutUser,
        private: isPrivate,
      });
    const OTHER_GROUP = -2002;
    for (const chatId of [ADA, BO, GROUP_CHAT, OTHER_GROUP]) {
      await add(chatId, null);
      for (const person of [ADA, BO]) for (const isPrivate of [false, true]) await add(chatId, person, isPrivate);
    }
    const audiences: MemoryAudience[] = [
      { chatId: ADA, isPrivate: true, speakers: [ADA] },
      { chatId: BO, isPrivate: true, speakers: [BO] },
      // A private chat's speaker is its person; another id there is not a speaker whose facts may be shown.
      { chatId: ADA, isPrivate: true, speakers: [ADA, BO] },
      { chatId: GROUP_CHAT, isPrivate: false, speakers: [ADA] },
      { chatId: GROUP_CHAT, isPrivate: false, speakers: [ADA, BO] },
      { chatId: OTHER_GROUP, isPrivate: false, speakers: [BO] },
      { chatId: GROUP_CHAT, isPrivate: false, speakers: [] },
    ];
    const everything = await memories.visible({ chatId: 0, isPrivate: false, speakers: [] }, 1000);
    expect(everything).toHaveLength(0);
    const all = (await env.DB.prepare("SELECT id FROM memories").all<{ id: number }>()).results;
    const rows = await Promise.all(all.map(({ id }) => memories.byId(id)));
    for (const audience of audiences) {
      const seen = (await memories.visible(audience, 1000)).map((fact) => fact.id).sort((a, b) => a - b);
      const expected = rows.filter((fact) => fact && canSee(fact, audience)).map((fact) => fact!.id);
      expect(seen, JSON.stringify(audience)).toEqual(expected.sort((a, b) => a - b));
    }
    const inGroup = await memories.visible({ chatId: GROUP_CHAT, isPrivate: false, speakers: [ADA] }, 1000);
    expect(inGroup.map((fact) => fact.content).sort()).toEqual(
      [
        `fact ${ADA}/${ADA}/false`,
        `fact ${GROUP_CHAT}/${ADA}/false`,
        `fact ${GROUP_CHAT}/${ADA}/true`,
        `fact ${GROUP_CHAT}/null/false`,
      ].sort(),
    );
    const inPrivate = await memories.visible({ chatId: ADA, isPrivate: true, speakers: [ADA, BO] }, 1000);
    expect(inPrivate.map((fact) => fact.content).sort()).toEqual(
      [`fact ${ADA}/${ADA}/false`, `fact ${ADA}/${ADA}/true`, `fact ${ADA}/null/false`].sort(),
    );
  });
});

type Keyboard = { text: string; callback_data: string }[][];
const keyboardOf = (request: RecordedRequest) =>
  ((request.body as { reply_markup?: { inline_keyboard: Keyboard } }).reply_markup?.inline_keyboard ?? []).flat();
const messageIdOf = (request: RecordedRequest) => (request.result as { message_id: number }).message_id;

describe("people see and control what is kept", () => {
  async function seed() {
    const memories = new MemoryRepository(database(env));
    const fact = (chatId: number, content: string, more: { aboutUser?: number; private?: boolean; by?: number }) =>
      memories.add({
        chatId,
        content,
        createdBy: more.by ?? more.aboutUser ?? null,
        createdAt: Date.parse("2026-11-20T10:00:00Z"),
        outside: null,
        aboutUser: more.aboutUser ?? null,
        private: more.private ?? false,
      });
    return {
      shared: await fact(ADA, "Ada is vegetarian.", { aboutUser: ADA }),
      secret: await fact(ADA, "Ada is saving for a *boat*.", { aboutUser: ADA, private: true }),
      group: await fact(GROUP_CHAT, "The family eats at 7.", { by: BO }),
      bos: await fact(BO, "Bo is allergic to peanuts.", { aboutUser: BO, private: true }),
    };
  }

  it("/memory in a group shows the asker's facts the group may see, and only they or an admin forget them", async () => {
    const ids = await seed();
    const menu = await say("/memory", { chatId: GROUP_CHAT, fromId: ADA, firstName: "Ada" });
    const text = sentText(menu);
    expect(text).toContain(`#${ids.shared} Ada is vegetarian.`);
    expect(text).toContain(`#${ids.group} The family eats at 7.`);
    expect(text).not.toMatch(/boat|peanuts/);
    const button = keyboardOf(menu).find((entry) => entry.text === `🗑 #${ids.shared}`)!;
    expect(button.callback_data).toBe(`mem:${ADA}:${ids.shared}`);

    // Someone else (not an admin) presses Ada's button: refused, nothing forgotten.
    const stranger = 501;
    await postUpdate(
      buttonPress(button.callback_data, { chatId: GROUP_CHAT, fromId: stranger, messageId: messageIdOf(menu) }),
    );
    const [refused] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect((refused!.body as { text: string }).text).toBe("Only the person it is about, or an admin, can forget this.");
    expect(await new MemoryRepository(database(env)).byId(ids.shared)).toBeDefined();

    await postUpdate(
      buttonPress(button.callback_data, { chatId: GROUP_CHAT, fromId: ADA, messageId: messageIdOf(menu) }),
    );
    const [, done] = await fakes.wait("telegram", { method: "answerCallbackQuery", count: 2 });
    expect((done!.body as { text: string }).text).toBe(`Forgot #${ids.shared}.`);
    expect(await new MemoryRepository(database(env)).byId(ids.shared)).toBeUndefined();
    const [edit] = await fakes.wait("telegram", { method: "editMessageText", chatId: GROUP_CHAT });
    expect(JSON.stringify(edit!.body)).not.toContain("vegetarian");
  });

  it("/memory in private shows everything kept about the person, private facts marked; a forged button is refused", async () => {
    const ids = await seed();
    const menu = await say("/memory", { chatId: ADA, fromId: ADA });
    expect(sentText(menu)).toContain(`#${ids.secret} Ada is saving for a *boat*. <i>(private)</i>`);
    expect(sentText(menu)).not.toContain("peanuts");
    // A button naming Bo's fact, pressed in Ada's chat (Telegram would never send it; a forged one is refused).
    await postUpdate(buttonPress(`mem:${ADA}:${ids.bos}`, { chatId: ADA, fromId: ADA, messageId: messageIdOf(menu) }));
    const [refused] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect((refused!.body as { text: string }).text).toBe("That fact is not kept in this chat.");
    expect(await new MemoryRepository(database(env)).byId(ids.bos)).toBeDefined();

    // Ada says her private fact may be used where she talks: only she can, in her own chat.
    const share = keyboardOf(menu).find((button) => button.text === `🔓 #${ids.secret}`)!;
    expect(share.callback_data).toBe(`memp:${ids.secret}:0`);
    await postUpdate(
      buttonPress(share.callback_data, { chatId: GROUP_CHAT, fromId: ADA, messageId: messageIdOf(menu) }),
    );
    const [, elsewhere] = await fakes.wait("telegram", { method: "answerCallbackQuery", count: 2 });
    expect((elsewhere!.body as { text: string }).text).toBe(
      "Only the person it is about can change this, in their own chat with me.",
    );
    expect((await new MemoryRepository(database(env)).byId(ids.secret))?.private).toBe(true);
    await postUpdate(buttonPress(share.callback_data, { chatId: ADA, fromId: ADA, messageId: messageIdOf(menu) }));
    const [, , shared] = await fakes.wait("telegram", { method: "answerCallbackQuery", count: 3 });
    expect((shared!.body as { text: string }).text).toBe(`#${ids.secret} may be used where you talk to me.`);
    const [inGroup] = await tell("@testbot any plans?", { chatId: GROUP_CHAT, fromId: ADA, firstName: "Ada" });
    expect(systemOf(inGroup!)).toContain("Ada is saving for a *boat*.");
  });

  it("'forget that' deletes the person's own fact; nobody else's model can forget it", async () => {
    const ids = await seed();
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "forget", arguments: { id: ids.shared } }]),
      openaiText("Forgotten."),
    );
    const [, second] = await tell("@testbot forget Ada's diet", { chatId: GROUP_CHAT, fromId: BO, firstName: "Bo" }, 2);
    expect(JSON.stringify(second!.body)).toContain(`No fact with id ${ids.shared} in this chat.`);
    expect(await new MemoryRepository(database(env)).byId(ids.shared)).toBeDefined();

    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "forget", arguments: { id: ids.secret } }]),
      openaiText("Forgotten."),
    );
    const [, mine] = await tell("forget that", { chatId: ADA, fromId: ADA, firstName: "Ada" }, 2);
    expect(JSON.stringify(mine!.body)).toContain(`Forgot fact ${ids.secret}.`);
    expect(await new MemoryRepository(database(env)).byId(ids.secret)).toBeUndefined();
  });
});

describe("a person's data from the console and the admin API", () => {
  it("exports everything kept about a person as one JSON download, and deletes all of it (only theirs)", async () => {
    const memories = new MemoryRepository(database(env));
    const base = { createdAt: Date.parse("2026-11-20T10:00:00Z"), outside: null };
    const adaFact = await memories.add({
      ...base,
      chatId: ADA,
      content: "Ada is vegetarian.",
      createdBy: ADA,
      aboutUser: ADA,
    });
    const groupFact = await memories.add({
      ...base,
      chatId: GROUP_CHAT,
      content: "The family eats at 7.",
      createdBy: BO,
    });
    await memories.add({ ...base, chatId: BO, content: "Bo is allergic to peanuts.", createdBy: BO, aboutUser: BO });
    await say("hello, I'm Ada", { chatId: ADA, fromId: ADA });
    await settled(ADA);
    // A photo Ada sent, kept in the MEDIA bucket.
    await env.MEDIA.put("telegram/ada-photo", new Uint8Array([1, 2, 3]));
    await runInDurableObject(session(ADA), (_instance, state) => {
      const photo = {
        role: "user",
        content: "my dinner",
        attachments: [{ kind: "image", key: "telegram/ada-photo", mediaType: "image/jpeg", size: 3 }],
      };
      state.storage.sql.exec(
        "INSERT INTO history (role, message, created_at) VALUES ('user', ?, ?)",
        JSON.stringify(photo),
        Date.now(),
      );
    });

    const browser = new ConsoleBrowser();
    await browser.signIn();
    expect(await (await browser.get("/console/people")).text()).toContain(`/console/people/${ADA}`);
    const page = await (await browser.get(`/console/people/${ADA}`)).text();
    expect(page).toContain("Ada is vegetarian.");
    expect(page).not.toContain("peanuts");
    const chatPage = await (await browser.get(`/console/chats/${GROUP_CHAT}/memories`)).text();
    expect(chatPage).toContain("The family eats at 7.");

    const download = await browser.get(`/console/people/${ADA}/export`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="person-${ADA}.json"`);
    const exported = (await download.json()) as {
      memories: { id: number; content: string }[];
      privateChat: { messages: { content: string; files: string[] }[] };
      files: string[];
    };
    expect(exported.memories.map((fact) => fact.content)).toEqual(["Ada is vegetarian."]);
    expect(exported.privateChat.messages.map((message) => message.content)).toEqual(["hello, I'm Ada", "my dinner"]);
    expect(exported.files).toEqual(["telegram/ada-photo"]);
    expect(JSON.stringify(exported)).not.toMatch(/peanuts|family eats/);

    // A delete must be confirmed with the id; then everything of Ada's goes, and nothing of anyone else's.
    expect((await browser.post(`/console/people/${ADA}/delete`, { confirm: "1" })).status).toBe(400);
    expect(await memories.byId(adaFact)).toBeDefined();
    const deleted = await browser.post(`/console/people/${ADA}/delete`, { confirm: String(ADA) });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/console/people?done=deleted");
    expect(await memories.aboutPerson(ADA)).toEqual([]);
    expect(await memories.aboutPerson(BO)).toHaveLength(1);
    expect(await memories.byId(groupFact)).toBeDefined();
    expect(await storedHistory(ADA)).toEqual([]);
    const archived = await runInDurableObject(
      session(ADA),
      (_i, state) => state.storage.sql.exec("SELECT count(*) AS n FROM history_archive").one().n,
    );
    expect(archived).toBe(0);
    expect(await env.MEDIA.get("telegram/ada-photo")).toBeNull();

    // The admin API: one fact deleted by id, then it is gone.
    expect((await admin(`/memories/${groupFact}`, { method: "DELETE" })).status).toBe(204);
    expect((await admin(`/memories/${groupFact}`, { method: "DELETE" })).status).toBe(404);
    expect((await admin("/people/abc/export")).status).toBe(400);
    const document = (await (await admin("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/people/{userId}/export", "/people/{userId}", "/chats/{chatId}/memories"]),
    );
  });
});

describe("a private chat without facts of its person", () => {
  it("is known to have none from the moment its object's storage is created: its first turn reads no facts", async () => {
    const flag = await runInDurableObject(session(ADA), (_i, state) =>
      state.storage.sql.exec("SELECT value FROM meta WHERE key = 'personFactsNone'").toArray(),
    );
    expect(flag).toEqual([{ value: "true" }]);
  });

  it("skips the read while its person has none here, and reads again once a turn here writes one", async () => {
    const ada = { chatId: ADA, fromId: ADA, firstName: "Ada" };
    const flag = () =>
      runInDurableObject(session(ADA), (_i, state) =>
        state.storage.sql.exec("SELECT value FROM meta WHERE key = 'personFactsNone'").toArray(),
      );
    await tell("hello", ada);
    expect(await flag()).toEqual([{ value: "true" }]);
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "remember", arguments: { fact: "Ada is vegetarian.", scope: "person" } }]),
      openaiText("Noted."),
    );
    await tell("I'm vegetarian", ada, 2);
    expect(await flag()).toEqual([]);
    const [next] = await tell("what's for dinner?", ada);
    expect(systemOf(next!)).toContain("Ada is vegetarian.");
  });
});
