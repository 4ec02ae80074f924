import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { database } from "../../src/db/database.ts";
import type { ChatSession } from "../../src/durable/chat-session.ts";
import type { SkillScope, TurnSkills } from "../../src/skills/skill.ts";
import { SkillDirectory, skillDirectory } from "../../src/skills/skill-directory.ts";
import { CachedSkills, saveSkill } from "../../src/skills/skill-store.ts";
import { ConsoleBrowser } from "./console-browser.ts";
import {
  admin,
  anthropicText,
  anthropicToolUse,
  fakes,
  GROUP_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  say,
  sentText,
  session,
} from "./helpers.ts";

const PACKING = `---
name: packing-list
description: How to write a packing list for a trip
---

# Packing lists
PACKING-BODY: group the items by bag, and end with the travel documents.
`;
const TONE = `---
name: house-tone
description: How this chat wants answers written
always: true
---

TONE-BODY: answer like a ship's captain.
`;

async function upload(markdown: string, scope: number | "bot" = PRIVATE_CHAT): Promise<Response> {
  const path = scope === "bot" ? "/skills" : `/chats/${scope}/skills`;
  return admin(path, { method: "POST", body: JSON.stringify({ markdown }) });
}

type OpenAiBody = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
type AnthropicBody = { system: { text: string }[]; tools?: { name: string }[]; messages: unknown[] };

describe("skills through the admin API", () => {
  it("uploads, lists, reads, replaces, switches and deletes a chat's skill", async () => {
    const created = await upload(PACKING);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      skill: {
        name: "packing-list",
        always: false,
        enabled: true,
        description: "How to write a packing list for a trip",
      },
    });
    expect((await upload(PACKING)).status).toBe(409);

    const list = (await (await admin(`/chats/${PRIVATE_CHAT}/skills`)).json()) as {
      skills: { name: string; chars: number }[];
      totalChars: number;
      maxChars: number;
      maxTotalChars: number;
    };
    expect(list.skills.map((skill) => skill.name)).toEqual(["packing-list"]);
    expect(list).toMatchObject({ maxChars: 8000, maxTotalChars: 32000 });
    expect(list.totalChars).toBe(list.skills[0]!.chars);

    const one = (await (await admin(`/chats/${PRIVATE_CHAT}/skills/packing-list`)).json()) as {
      skill: { markdown: string; body: string };
    };
    expect(one.skill.body).toContain("PACKING-BODY");
    expect(one.skill.markdown).toMatch(/^---\nname: packing-list\ndescription: "How to write/);

    const replaced = await admin(`/chats/${PRIVATE_CHAT}/skills/packing-list`, {
      method: "PUT",
      body: JSON.stringify({ markdown: PACKING.replace("PACKING-BODY", "PACKING-V2"), enabled: false }),
    });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ skill: { enabled: false } });
    const switched = await admin(`/chats/${PRIVATE_CHAT}/skills/packing-list`, {
      method: "PATCH",
      body: JSON.stringify({ enabled: true, always: true }),
    });
    expect(await switched.json()).toMatchObject({ skill: { enabled: true, always: true } });

    // Another chat does not see it; the bot's skills are their own list.
    expect(((await (await admin(`/chats/${GROUP_CHAT}/skills`)).json()) as { skills: unknown[] }).skills).toEqual([]);
    expect(((await (await admin("/skills")).json()) as { skills: unknown[] }).skills).toEqual([]);

    expect((await admin(`/chats/${PRIVATE_CHAT}/skills/packing-list`, { method: "DELETE" })).status).toBe(204);
    expect((await admin(`/chats/${PRIVATE_CHAT}/skills/packing-list`, { method: "DELETE" })).status).toBe(404);
  });

  it("refuses a bad file with a 400 naming the field, and stores nothing", async () => {
    const cases: [string, string][] = [
      ["just text, no front matter", "markdown"],
      ["---\nname: Packing List\ndescription: x\n---\nbody", "name"],
      ["---\nname: packing\n---\nbody", "description"],
      [`---\nname: packing\ndescription: ${"d".repeat(1100)}\n---\nbody`, "description"],
      ["---\nname: packing\ndescription: x\nalways: yes\n---\nbody", "always"],
      ["---\nname: packing\ndescription: x\n---\n\n", "body"],
      [`---\nname: packing\ndescription: x\n---\n${"b".repeat(8001)}`, "body"],
      ["---\nname: [unclosed\n---\nbody", "markdown"],
    ];
    for (const [markdown, field] of cases) {
      const response = await upload(markdown);
      expect(response.status, markdown.slice(0, 40)).toBe(400);
      const body = (await response.json()) as { error: string; details: { field: string }[] };
      expect(body.error).toBe("invalid_request");
      expect(body.details.map((detail) => detail.field)).toContain(field);
    }
    const wrongShape = await admin(`/chats/${PRIVATE_CHAT}/skills`, {
      method: "POST",
      body: JSON.stringify({ markdown: PACKING, colour: "red" }),
    });
    expect(wrongShape.status).toBe(400);
    const misnamed = await admin(`/chats/${PRIVATE_CHAT}/skills/other-name`, {
      method: "PUT",
      body: JSON.stringify({ markdown: PACKING }),
    });
    expect(((await misnamed.json()) as { details: { field: string }[] }).details[0]!.field).toBe("name");
    expect(((await (await admin(`/chats/${PRIVATE_CHAT}/skills`)).json()) as { skills: unknown[] }).skills).toEqual([]);
  });

  it("caps a chat's skills in total (SKILLS_MAX_TOTAL_CHARS): the skill past it is refused", async () => {
    const skill = (index: number) => `---\nname: big-${index}\ndescription: d\n---\n${"x".repeat(7_000)}`;
    for (let index = 0; index < 4; index++) {
      const response = await upload(skill(index));
      expect(response.status, await response.text()).toBe(201);
    }
    const refused = await upload(skill(4));
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { details: { field: string; problem: string }[] };
    expect(body.details[0]).toMatchObject({
      field: "body",
      problem: expect.stringContaining("SKILLS_MAX_TOTAL_CHARS"),
    });
    // The bot's own skills have their own total.
    expect((await upload(skill(4), "bot")).status).toBe(201);
  });

  it("documents the routes in the OpenAPI document", async () => {
    const document = (await (await admin("/openapi.json")).json()) as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/skills", "/skills/{name}", "/chats/{chatId}/skills", "/chats/{chatId}/skills/{name}"]),
    );
    expect(document.components.schemas.SkillUpload).toMatchObject({ properties: { markdown: { type: "string" } } });
  });
});

describe("skills in a turn", () => {
  it("OpenAI: an always skill is in the system prompt; a listed one is read with use_skill only when asked about", async () => {
    await upload(PACKING);
    await upload(TONE);
    // A fake model that decides by what it is shown: it reads the skill when the listing names it and the question
    // is about packing, and follows it once it has read it.
    await fakes.script(
      "openai",
      {
        ...openaiToolCalls([{ name: "use_skill", arguments: { name: "packing-list" } }]),
        when: ["- packing-list: How to write", "pack for Rome"],
      },
      { ...openaiText("Bag one: clothes. Documents last."), when: ["PACKING-BODY"] },
    );
    const answer = await say("What should I pack for Rome?", { count: 2 });
    expect(sentText(answer)).toBe("Bag one: clothes. Documents last.");
    const calls = (await fakes.requests("openai")).map((call) => call.body as OpenAiBody);
    expect(calls).toHaveLength(2);
    const system = String(calls[0]!.messages[0]!.content);
    expect(system).toContain('<skill name="house-tone">\nTONE-BODY');
    expect(system).toContain("- packing-list: How to write a packing list for a trip");
    expect(system).not.toContain("PACKING-BODY");
    expect(calls[0]!.tools?.map((tool) => tool.function.name)).toContain("use_skill");
    expect(JSON.stringify(calls[1]!.messages.at(-1))).toContain("PACKING-BODY");

    // Another topic: the listing is there, the skill is not read.
    const other = await say("What is the capital of France?", { count: 3 });
    expect(sentText(other)).toBe("echo: What is the capital of France?");
    // One model call answered it: no use_skill call.
    expect(await fakes.requests("openai")).toHaveLength(3);
  });

  it("Anthropic: the same, through the Messages API", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify({ provider: "anthropic" }) });
    await upload(PACKING);
    await upload(TONE);
    await fakes.script(
      "anthropic",
      {
        ...anthropicToolUse([{ name: "use_skill", input: { name: "packing-list" } }]),
        when: ["- packing-list: ", "pack for Oslo"],
      },
      { ...anthropicText("Warm layers in bag one."), when: ["PACKING-BODY"] },
    );
    const answer = await say("What should I pack for Oslo?", { count: 2 });
    expect(sentText(answer)).toBe("Warm layers in bag one.");
    const calls = (await fakes.requests("anthropic")).map((call) => call.body as AnthropicBody);
    const system = calls[0]!.system.map((part) => part.text).join("\n");
    expect(system).toContain("TONE-BODY");
    expect(system).toContain("- packing-list: How to write a packing list for a trip");
    expect(calls[0]!.tools?.map((tool) => tool.name)).toContain("use_skill");
    expect(JSON.stringify(calls[1]!.messages)).toContain("PACKING-BODY");
  });

  it("gives a chat the bot's skills unless it has its own of that name; disabled ones are left out", async () => {
    await upload(TONE.replace("TONE-BODY", "BOT-TONE"), "bot");
    await upload(PACKING.replace("packing-list", "bot-only").replace("How to write", "BOT-ONLY-DESCRIPTION"), "bot");
    await upload(TONE);
    await admin(`/chats/${PRIVATE_CHAT}/skills/house-tone`, {
      method: "PATCH",
      body: JSON.stringify({ enabled: false }),
    });
    await fakes.script("openai", openaiText("ok"));
    await say("Hello");
    const system = String(((await fakes.requests("openai"))[0]!.body as OpenAiBody).messages[0]!.content);
    expect(system).toContain("BOT-ONLY-DESCRIPTION");
    // The chat's own house-tone (off) stands in for the bot's: neither is given.
    expect(system).not.toContain("TONE-BODY");
    expect(system).not.toContain("BOT-TONE");
  });

  it("offers no use_skill and lists nothing when the chat has no skills read on demand", async () => {
    await fakes.script("openai", openaiText("ok"));
    await say("Hello");
    const body = (await fakes.requests("openai"))[0]!.body as OpenAiBody;
    expect(body.tools?.map((tool) => tool.function.name)).not.toContain("use_skill");
    expect(String(body.messages[0]!.content)).not.toContain("More skills");
  });
});

describe("skills and the model's window", () => {
  it("count against HISTORY_WINDOW_TOKENS: a large always skill leaves less room for old messages", async () => {
    // About 45,000 bytes of history: it fits the 16,000-token window (48,000 bytes) alone, not beside a skill.
    await runInDurableObject(session(PRIVATE_CHAT), (instance: ChatSession) => {
      const rows = Array.from({ length: 10 }, (_, index) => [
        { role: "user" as const, content: `OLD-${index} ${"o".repeat(2_200)}` },
        { role: "assistant" as const, content: "a".repeat(2_200) },
      ]).flat();
      instance.stores.history.append(rows, Date.now());
    });
    await fakes.script("openai", openaiText("first"));
    await say("Hello");
    const before = JSON.stringify(((await fakes.requests("openai"))[0]!.body as OpenAiBody).messages);
    expect(before).toContain("OLD-0 ");

    await upload(`---\nname: big\ndescription: d\nalways: true\n---\n${"s".repeat(7_900)}`);
    await fakes.script("openai", openaiText("second"));
    await say("Again", { count: 2 });
    const after = JSON.stringify(((await fakes.requests("openai"))[1]!.body as OpenAiBody).messages);
    expect(after).toContain("s".repeat(7_900));
    expect(after).not.toContain("OLD-0 ");
    expect(after).toContain("OLD-9 ");
  });
});

describe("skills for an agent", () => {
  it("go to the runner as the payload's skills; only the always ones are in its system prompt", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify({ provider: "claude-agent" }) });
    await upload(PACKING);
    await upload(TONE);
    await fakes.script("runner", { lines: [{ line: JSON.stringify({ type: "result", text: "done" }) }] });
    await say("hello agent");
    const payload = (await fakes.requests("runner"))[0]!.body as {
      systemPrompt: string;
      tools: { name: string }[];
      skills: { name: string; description: string; body: string }[];
    };
    expect(payload.skills).toEqual([
      {
        name: "packing-list",
        description: "How to write a packing list for a trip",
        body: expect.stringContaining("PACKING-BODY"),
      },
    ]);
    expect(payload.systemPrompt).toContain("TONE-BODY");
    expect(payload.systemPrompt).not.toContain("packing-list");
    expect(payload.tools.map((tool) => tool.name)).not.toContain("use_skill");
  });
});

describe("/skills", () => {
  it("lists the chat's skills for anyone, shows one, and lets only admins switch them", async () => {
    await upload(PACKING, GROUP_CHAT);
    await upload(TONE, "bot");
    const list = await say("/skills", { chatId: GROUP_CHAT, fromId: 1002 });
    expect(sentText(list)).toContain("packing-list");
    expect(sentText(list)).toContain("house-tone");
    expect(sentText(list)).toContain("The bot");

    const show = await say("/skills show packing-list", { chatId: GROUP_CHAT, fromId: 1002, count: 2 });
    expect(sentText(show)).toContain("PACKING-BODY");

    const refused = await say("/skills off packing-list", { chatId: GROUP_CHAT, fromId: 1002, count: 3 });
    expect(sentText(refused)).toBe("Only the bot's admins can change skills.");
    const off = await say("/skills off packing-list", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, count: 4 });
    expect(sentText(off)).toContain("is off");
    const stored = (await (await admin(`/chats/${GROUP_CHAT}/skills`)).json()) as { skills: { enabled: boolean }[] };
    expect(stored.skills[0]!.enabled).toBe(false);
    const bot = await say("/skills off house-tone", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, count: 5 });
    expect(sentText(bot)).toContain("one of the bot's skills");

    // The next turn of the chat no longer lists it.
    await fakes.script("openai", openaiText("ok"));
    await say("@testbot hello", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, count: 6 });
    const system = String(((await fakes.requests("openai"))[0]!.body as OpenAiBody).messages[0]!.content);
    expect(system).not.toContain("packing-list");
  });
});

describe("skills in the console", () => {
  it("adds a skill from a chat's page, which the next answer uses; a bad file comes back with its problems", async () => {
    const browser = new ConsoleBrowser();
    await browser.signIn();
    const bad = await browser.post(`/console/chats/${PRIVATE_CHAT}/skills`, {
      markdown: "---\nname: Bad Name\ndescription: x\n---\nbody",
    });
    expect(bad.status).toBe(400);
    const page = await bad.text();
    expect(page).toContain('data-field-error="new-skill"');
    expect(page).toContain("name: must be 1-64 lowercase letters");
    // What was typed is kept.
    expect(page).toContain("Bad Name");

    const added = await browser.post(`/console/chats/${PRIVATE_CHAT}/skills`, { markdown: TONE });
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe(`/console/chats/${PRIVATE_CHAT}?done=skill-saved#skills`);
    const shown = await (await browser.get(`/console/chats/${PRIVATE_CHAT}?done=skill-saved`)).text();
    expect(shown).toContain('data-skill="house-tone"');
    expect(shown).toContain("Skill saved.");

    await fakes.script("openai", { ...openaiText("Aye, captain here."), when: ["TONE-BODY"] });
    expect(sentText(await say("Hello"))).toBe("Aye, captain here.");

    const edit = await browser.post(`/console/chats/${PRIVATE_CHAT}/skills/house-tone`, {
      markdown: TONE.replace("always: true", "always: maybe"),
    });
    expect(edit.status).toBe(400);
    expect(await edit.text()).toContain('data-field-error="house-tone"');
    expect((await browser.post(`/console/chats/${PRIVATE_CHAT}/skills/house-tone/disable`, {})).status).toBe(303);
    expect((await browser.post("/console/skills", { markdown: PACKING })).status).toBe(303);
    const botPage = await (await browser.get("/console/skills")).text();
    expect(botPage).toContain('data-skill="packing-list"');
    // Cross-site posts are refused, as everywhere in the console.
    expect((await browser.post("/console/skills", { markdown: PACKING }, "https://evil.example")).status).toBe(403);
  });
});

describe("a chat object's cached skills", () => {
  const file = (name: string, always = false) => ({ name, description: `${name} skill`, always, body: `${name} body` });
  const save = (scope: SkillScope, name: string, enabled = true) =>
    saveSkill(database(env), { scope, file: file(name), enabled, maxTotalChars: 100_000, now: Date.now() });
  /** An isolate's directory of its own (a stand-in for another isolate's), its D1 batches counted. */
  function directory() {
    const db = database(env);
    const batches = vi.spyOn(db, "batch");
    return { directory: new SkillDirectory(db, Date.now), batches };
  }
  /** A chat object's cache: its own reads (a chat with skills of its own, or one told of a change) counted. */
  function cached(shared: SkillDirectory) {
    const counted = { ownReads: 0 };
    const skills = new CachedSkills({
      db: () => {
        counted.ownReads++;
        return database(env);
      },
      directory: () => shared,
    });
    return Object.assign(counted, { skills });
  }
  const names = (skills: TurnSkills) => [...skills.always, ...skills.listed].map((skill) => skill.name);

  it("give chats without skills of their own the bot's enabled ones, from one read the isolate's chats share", async () => {
    await save({ kind: "bot" }, "packing");
    await save({ kind: "bot" }, "retired", false);
    const { directory: shared, batches } = directory();
    const chats = [cached(shared), cached(shared), cached(shared)];
    const found = await Promise.all(chats.map((chat, index) => chat.skills.forChat(PRIVATE_CHAT + index)));
    expect(found.map(names)).toEqual([["packing"], ["packing"], ["packing"]]);
    expect(batches).toHaveBeenCalledTimes(1);
    expect(chats.map((chat) => chat.ownReads)).toEqual([0, 0, 0]);
  });

  it("read a chat's own with the bot's, its own (even disabled) standing in for the bot's of the same name", async () => {
    await save({ kind: "bot" }, "packing");
    await save({ kind: "bot" }, "tone");
    await save({ kind: "chat", chatId: PRIVATE_CHAT }, "packing", false);
    await save({ kind: "chat", chatId: PRIVATE_CHAT }, "mine");
    const { directory: shared } = directory();
    const own = cached(shared);
    expect(names(await own.skills.forChat(PRIVATE_CHAT))).toEqual(["mine", "tone"]);
    expect(own.ownReads).toBe(1);
    const other = cached(shared);
    expect(names(await other.skills.forChat(GROUP_CHAT))).toEqual(["packing", "tone"]);
    expect(other.ownReads).toBe(0);
  });

  it("see a change they are told of at once, though the isolate's directory was read before it", async () => {
    const { directory: shared, batches } = directory();
    const told = cached(shared);
    const untold = cached(shared);
    expect(names(await told.skills.forChat(PRIVATE_CHAT))).toEqual([]);
    expect(names(await untold.skills.forChat(PRIVATE_CHAT))).toEqual([]);
    // Written elsewhere (another isolate, the admin API): this directory does not know for up to a minute.
    await save({ kind: "chat", chatId: PRIVATE_CHAT }, "fresh");
    told.skills.forget();
    expect(names(await told.skills.forChat(PRIVATE_CHAT))).toEqual(["fresh"]);
    expect(told.ownReads).toBe(1);
    expect(batches).toHaveBeenCalledTimes(1);
  });

  it("keep what they took from the directory no longer than the directory, so the bot's changes arrive within a minute", async () => {
    let now = 1_000_000;
    const shared = new SkillDirectory(database(env), () => now);
    const first = new CachedSkills({ db: () => database(env), directory: () => shared, now: () => now });
    const later = new CachedSkills({ db: () => database(env), directory: () => shared, now: () => now });
    expect(names(await first.forChat(PRIVATE_CHAT))).toEqual([]);
    now += 50_000;
    expect(names(await later.forChat(GROUP_CHAT))).toEqual([]);
    // Written in another isolate: this one hears of it when its directory is read again, a minute after the last read.
    await save({ kind: "bot" }, "packing");
    now += 10_001;
    expect(names(await later.forChat(GROUP_CHAT))).toEqual(["packing"]);
    expect(names(await first.forChat(PRIVATE_CHAT))).toEqual(["packing"]);
  });

  it("share a read under way (the warm-up, then the turn), and a change heard meanwhile is not overwritten by it", async () => {
    await save({ kind: "chat", chatId: PRIVATE_CHAT }, "mine");
    const chat = cached(directory().directory);
    const [warm, turn] = await Promise.all([chat.skills.forChat(PRIVATE_CHAT), chat.skills.forChat(PRIVATE_CHAT)]);
    expect(chat.ownReads).toBe(1);
    expect(turn).toBe(warm);

    chat.skills.forget();
    const reading = chat.skills.forChat(PRIVATE_CHAT);
    chat.skills.forget();
    await reading;
    await chat.skills.forChat(PRIVATE_CHAT);
    expect(chat.ownReads).toBe(3);
    await chat.skills.forChat(PRIVATE_CHAT);
    expect(chat.ownReads).toBe(3);
  });

  it("read the directory again after a failed read, and the isolate's own writes at once", async () => {
    const { directory: shared, batches } = directory();
    batches.mockRejectedValueOnce(new Error("D1 is away"));
    const chat = cached(shared);
    await expect(chat.skills.forChat(PRIVATE_CHAT)).rejects.toThrow("D1 is away");
    expect(names(await chat.skills.forChat(PRIVATE_CHAT))).toEqual([]);
    expect(batches).toHaveBeenCalledTimes(2);

    const isolate = skillDirectory(env.DB);
    expect((await isolate.read()).bot).toEqual([]);
    await save({ kind: "bot" }, "packing");
    expect((await skillDirectory(env.DB).read()).bot.map((skill) => skill.name)).toEqual(["packing"]);
  });
});
