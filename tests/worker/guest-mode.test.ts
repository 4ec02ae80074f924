import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ChatAccess } from "../../src/access/chat-access.ts";
import { settingsOf } from "../../src/config/loaded-settings.ts";
import type { RecordedRequest } from "../fakes/server.ts";
import {
  admin,
  fakes,
  OTHER_PRIVATE_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  STRANGER_CHAT,
  session,
  settled,
} from "./helpers.ts";

/** A chat the bot is not in, where someone summons it. */
const FOREIGN_CHAT = -7007;
/**
 * A stranger of this file's own: the test below that no chat object is made looks for its id, which the runtime keeps
 * listing once an earlier test in the same workerd made that object (tests/worker/setup.ts), and webhook.test.ts's
 * stranger gets one.
 */
const GUEST_STRANGER = 5006;
let nextUpdate = 90_000;

function guestUpdate(
  text: string,
  options: { fromId: number; queryId?: string; replyTo?: { text: string; firstName: string } },
): Record<string, unknown> {
  const updateId = nextUpdate++;
  return {
    update_id: updateId,
    guest_message: {
      message_id: 0,
      date: Math.floor(Date.now() / 1000),
      chat: { id: FOREIGN_CHAT, type: "group", title: "Strangers' group" },
      from: { id: options.fromId, is_bot: false, first_name: "Grace" },
      text,
      guest_query_id: options.queryId ?? `gq-${updateId}`,
      ...(options.replyTo
        ? {
            reply_to_message: {
              message_id: 7,
              date: 1,
              chat: { id: FOREIGN_CHAT, type: "group" },
              from: { id: 777, is_bot: false, first_name: options.replyTo.firstName },
              text: options.replyTo.text,
            },
          }
        : {}),
    },
  };
}

type GuestAnswer = {
  guest_query_id: string;
  result: {
    type: string;
    id: string;
    title: string;
    input_message_content: { message_text: string; parse_mode?: string };
  };
};
type OpenAIBody = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };

async function guestAnswer(): Promise<GuestAnswer> {
  const [answer] = await fakes.wait("telegram", { method: "answerGuestQuery" });
  return answer!.body as GuestAnswer;
}

async function modelCalls(): Promise<OpenAIBody[]> {
  return (await fakes.requests("openai"))
    .filter((call) => call.path.endsWith("/chat/completions"))
    .map((call) => call.body as OpenAIBody);
}

describe("guest mode", () => {
  it("fetches an address the guest wrote, query and all, without asking (the data-out rule)", async () => {
    const url = `${env.FAKES_URL}/web/guest?id=7`;
    await fakes.script("web", { path: "/web/guest", headers: { "content-type": "text/plain" }, text: "A page." });
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "web_fetch", arguments: { url } }]),
      openaiText("It is a page."),
    );
    await postUpdate(guestUpdate(`@testbot summarise ${url}`, { fromId: OTHER_PRIVATE_CHAT }));
    await guestAnswer();
    expect((await fakes.requests("web")).map((request) => `${request.path}${request.query}`)).toEqual([
      "/web/guest?id=7",
    ]);
  });

  it("answers a known person's summons with one article, with their settings, and keeps nothing of that chat", async () => {
    await admin(`/chats/${OTHER_PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ systemPrompt: "Answer like a pirate." }),
    });
    const response = await postUpdate(
      guestUpdate("@testbot what does this mean?", {
        fromId: OTHER_PRIVATE_CHAT,
        queryId: "gq-known",
        replyTo: { text: "Carpe diem", firstName: "Linus" },
      }),
    );
    expect(await response.json()).toEqual({ ok: true, result: "queued" });

    const answer = await guestAnswer();
    expect(answer.guest_query_id).toBe("gq-known");
    expect(answer.result).toMatchObject({ type: "article", title: "Answer" });
    expect(answer.result.input_message_content.message_text).toContain("echo:");
    expect(answer.result.input_message_content.parse_mode).toBe("HTML");

    const [call] = await modelCalls();
    const system = String(call!.messages[0]!.content);
    expect(system).toContain('"Grace" summoned you as a guest into a group');
    expect(system).toContain("Answer like a pirate.");
    // Their words without the bot's name, under the message it was summoned on; no history of theirs.
    expect(call!.messages.slice(1)).toEqual([
      { role: "user", content: '[in reply to Linus: "Carpe diem"]\nGrace: what does this mean?' },
    ]);
    // Only reading the web: nothing that sends, schedules, remembers or recalls.
    expect(call!.tools?.map((tool) => tool.function.name)).toEqual(["web_fetch"]);

    await settled(OTHER_PRIVATE_CHAT);
    const kept = await runInDurableObject(session(OTHER_PRIVATE_CHAT), (instance, state) => ({
      history: instance.stores.history.count(),
      payloads: state.storage.sql.exec("SELECT kind, payload, status FROM inbox").toArray(),
      usage: instance.stores.usage.batch().records.map(({ record }) => ({ kind: record.kind, chatId: record.chatId })),
    }));
    expect(kept.history).toBe(0);
    expect(kept.payloads).toEqual([{ kind: "guest", payload: "{}", status: "done" }]);
    expect(kept.usage).toEqual([{ kind: "guest", chatId: OTHER_PRIVATE_CHAT }]);
    // No object and no directory row for the chat it was summoned in.
    const ids = (await listDurableObjectIds(env.CHAT_SESSION)).map((id) => id.toString());
    expect(ids).not.toContain(env.CHAT_SESSION.idFromName(`chat:${FOREIGN_CHAT}`).toString());
    const directory = await env.DB.prepare("SELECT chat_id FROM chats").all();
    expect(directory.results).toEqual([]);
    // Telegram heard nothing else: no message in the foreign chat, none in the person's own.
    expect((await fakes.requests("telegram")).filter((call) => call.method !== "getMe").map(methodOf)).toEqual([
      "answerGuestQuery",
    ]);
  });

  it("gives a stranger nothing at all: no answer, no model call, no chat object", async () => {
    const response = await postUpdate(guestUpdate("@testbot hello?", { fromId: GUEST_STRANGER }));
    expect(await response.json()).toEqual({
      ok: true,
      ignored: "guest query from someone the bot does not know",
    });
    expect((await fakes.requests("telegram")).map(methodOf)).toEqual([]);
    expect(await modelCalls()).toEqual([]);
    const ids = (await listDurableObjectIds(env.CHAT_SESSION)).map((id) => id.toString());
    expect(ids).not.toContain(env.CHAT_SESSION.idFromName(`chat:${GUEST_STRANGER}`).toString());
  });

  it("cuts an answer longer than one message, with a note", async () => {
    await fakes.script("openai", openaiText(`${"A long line of the answer. ".repeat(300)}The end.`));
    await postUpdate(guestUpdate("@testbot tell me a lot", { fromId: PRIVATE_CHAT }));
    const text = (await guestAnswer()).result.input_message_content.message_text;
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toMatch(/… \(cut: the whole answer was longer than one message\)$/);
  });

  it("a failing model is said in one line, and recorded as a failed guest turn", async () => {
    await fakes.script("openai", { status: 401, body: { error: { message: "Incorrect API key provided" } } });
    await postUpdate(guestUpdate("@testbot anything", { fromId: PRIVATE_CHAT }));
    expect((await guestAnswer()).result.input_message_content.message_text).toContain("refused");
    await settled(PRIVATE_CHAT);
    const usage = await runInDurableObject(session(PRIVATE_CHAT), (instance) =>
      instance.stores.usage.batch().records.map(({ record }) => [record.kind, record.outcome]),
    );
    expect(usage).toEqual([["guest", "error"]]);
  });

  it("a known person over their budget hears why in one line, and no model is called", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ budget: { dailyTokens: 0 } }),
    });
    await postUpdate(guestUpdate("@testbot anything", { fromId: PRIVATE_CHAT }));
    expect((await guestAnswer()).result.input_message_content.message_text).toContain("daily budget for you is spent");
    expect(await modelCalls()).toEqual([]);
  });

  it("a redelivered guest update is answered once", async () => {
    const update = guestUpdate("@testbot once", { fromId: PRIVATE_CHAT });
    await postUpdate(update);
    await guestAnswer();
    await settled(PRIVATE_CHAT);
    expect(await (await postUpdate(update)).json()).toEqual({ ok: true, result: "duplicate" });
  });
});

describe("who may summon the bot (GUEST_MODE)", () => {
  const access = (mode: string) =>
    new ChatAccess(settingsOf({ ...env, GUEST_MODE: mode }), {
      chats: { "4242": { approvedAt: 1, approvedBy: "test" } },
      admins: {},
    });

  it("known: admins, listed chats' people and paired people; admins: only admins; off: nobody", () => {
    expect([PRIVATE_CHAT, OTHER_PRIVATE_CHAT, 4242, STRANGER_CHAT].map((id) => access("known").maySummon(id))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect([PRIVATE_CHAT, OTHER_PRIVATE_CHAT, 4242].map((id) => access("admins").maySummon(id))).toEqual([
      true,
      false,
      false,
    ]);
    expect(access("off").maySummon(PRIVATE_CHAT)).toBe(false);
  });
});

function methodOf(call: RecordedRequest): string {
  return call.method;
}
