import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Api, InputFile } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTdlib } from "../../scripts/bot-api/tdlib.ts";
import {
  type BotApiStandIn,
  PLAYGROUND_CHAT,
  PLAYGROUND_CHATS,
  PLAYGROUND_FAMILY_CHAT,
  PLAYGROUND_GUEST_CHAT,
  type PlaygroundState,
  startBotApiStandIn,
} from "../../scripts/playground/bot-api.ts";
import { oggOpusComments, silentOggOpus } from "../../scripts/stand-in-model/ogg-opus.ts";

const TOKEN = "100000:PLAYGROUND";
/** Whether TDLib's parser loads here (the tests of parsing are skipped, with the reason, where it does not). */
const tdlib = await (async () => {
  const parser = await startTdlib();
  await parser.close();
  return parser.status;
})();

let webhook: Server;
let updates: { secret: string | undefined; body: Record<string, unknown> }[];
let standIn: BotApiStandIn;

async function bot(method: string, body: unknown, token = TOKEN) {
  const response = await fetch(`${standIn.url}/bot${token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    json: (await response.json()) as {
      ok: boolean;
      result?: { message_id: number; is_bot?: boolean };
      description?: string;
    },
  };
}

async function playground(path: string, body?: unknown) {
  const response = await fetch(`${standIn.url}/playground/${path}`, {
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as PlaygroundState };
}

describe("the playground's Bot API stand-in", () => {
  beforeEach(async () => {
    updates = [];
    webhook = createServer((request, response) => {
      let raw = "";
      request.on("data", (chunk) => (raw += chunk));
      request.on("end", () => {
        updates.push({ secret: request.headers["x-telegram-bot-api-secret-token"] as string, body: JSON.parse(raw) });
        response.end("ok");
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
    const { port } = webhook.address() as AddressInfo;
    standIn = await startBotApiStandIn({
      botToken: TOKEN,
      webhookUrl: `http://127.0.0.1:${port}/telegram/webhook`,
      webhookSecret: "s3cret",
    });
  });

  afterEach(async () => {
    await standIn.close();
    await new Promise((resolve) => webhook.close(resolve));
  });

  it("turns what the person types into updates for the webhook, commands with their entity", async () => {
    expect((await playground("send", { text: "/model" })).status).toBe(200);
    expect((await playground("send", { text: "   " })).status).toBe(400);
    expect(updates).toHaveLength(1);
    expect(updates[0]!.secret).toBe("s3cret");
    expect(updates[0]!.body).toMatchObject({
      message: {
        chat: { id: PLAYGROUND_CHAT.id, type: "private" },
        from: { id: PLAYGROUND_CHAT.id },
        text: "/model",
        entities: [{ type: "bot_command", offset: 0, length: 6 }],
      },
    });
  });

  it("keeps what the bot sends as a client shows it: drafts, typing, messages, edits, reactions and button answers", async () => {
    expect((await bot("sendMessage", { chat_id: 1, text: "x" }, "wrong")).status).toBe(401);
    expect((await bot("getMe", {})).json.result).toMatchObject({ is_bot: true });
    await bot("sendChatAction", { chat_id: PLAYGROUND_CHAT.id, action: "typing" });
    expect((await playground("state?since=-1")).json.typing).toBe(true);
    await bot("sendMessageDraft", { chat_id: PLAYGROUND_CHAT.id, draft_id: 7, text: "Hel" });
    expect((await playground("state")).json.draft).toEqual({ id: 7, text: "Hel", canStop: false });

    const sent = await bot("sendMessage", {
      chat_id: PLAYGROUND_CHAT.id,
      text: "<b>Hello</b>",
      parse_mode: "HTML",
      reply_markup: { inline_keyboard: [[{ text: "Stop", callback_data: "stop:1" }]] },
    });
    const id = sent.json.result!.message_id;
    let state = (await playground("state")).json;
    expect(state.draft).toBeNull();
    expect(state.typing).toBe(false);
    expect(state.messages).toEqual([
      expect.objectContaining({
        id,
        from: "bot",
        text: "<b>Hello</b>",
        html: true,
        buttons: [[{ text: "Stop", data: "stop:1" }]],
      }),
    ]);

    const edit = { chat_id: PLAYGROUND_CHAT.id, message_id: id, text: "Hello, edited" };
    expect((await bot("editMessageText", edit)).status).toBe(200);
    expect((await bot("editMessageText", edit)).json.description).toContain("message is not modified");
    await bot("setMessageReaction", {
      chat_id: PLAYGROUND_CHAT.id,
      message_id: id,
      reaction: [{ type: "emoji", emoji: "👀" }],
    });
    state = (await playground("state")).json;
    expect(state.messages[0]).toMatchObject({ text: "Hello, edited", edited: true, buttons: [], reaction: "👀" });

    // A press goes to the webhook as a callback query; its answer is shown once.
    await playground("press", { messageId: id, data: "stop:1" });
    expect(updates.at(-1)!.body).toMatchObject({ callback_query: { data: "stop:1", message: { message_id: id } } });
    await bot("answerCallbackQuery", { callback_query_id: "1", text: "Stopping…" });
    expect((await playground("state")).json.notes.map((note) => note.text)).toEqual(["Stopping…"]);
    // A method the Bot API does not have is answered as Telegram answers it.
    expect((await bot("sendTelepathy", { chat_id: PLAYGROUND_CHAT.id })).json).toEqual({
      ok: false,
      error_code: 404,
      description: "Not Found",
    });
  });

  it("hears of a press by inline_message_id once the bot asks so (Bot API 10.5), and takes an ephemeral reply to it", async () => {
    const sent = await bot("sendMessage", {
      chat_id: PLAYGROUND_CHAT.id,
      text: "Pick",
      reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] },
    });
    expect((await bot("setMySettings", { callback_query_mode: "inline" })).json.ok).toBe(true);
    await playground("press", { messageId: sent.json.result!.message_id, data: "a" });
    const query = (updates.at(-1)!.body as { callback_query: Record<string, unknown> }).callback_query;
    expect(query).toMatchObject({ data: "a", inline_message_id: expect.any(String) });
    expect(query).not.toHaveProperty("message");
    // The press is one the bot can still answer: an ephemeral reply names it alone.
    const reply = await bot("sendMessage", {
      text: "Only you see this",
      ephemeral_message_parameters: { callback_query_id: query.id },
    });
    expect(reply.json.ok, reply.json.description).toBe(true);
    expect(reply.json.result).toMatchObject({
      chat: { id: PLAYGROUND_CHAT.id },
      receiver_user: { id: PLAYGROUND_CHAT.id },
    });
  });

  it.skipIf(!tdlib.available)("refuses HTML Telegram cannot parse, with TDLib's words", async () => {
    const sent = await bot("sendMessage", { chat_id: PLAYGROUND_CHAT.id, text: "<b>open", parse_mode: "HTML" });
    expect(sent.status).toBe(400);
    expect(sent.json.description).toMatch(/^Bad Request: can't parse entities: /);
  });

  it("refuses what Telegram refuses, in its words (the core the tests' fake uses)", async () => {
    expect((await bot("editMessageText", { chat_id: PLAYGROUND_CHAT.id, message_id: 999, text: "x" })).json).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: message to edit not found",
    });
    expect((await playground("state")).json.messages).toEqual([]);
  });

  it("keeps rich messages and rich drafts, as sent, and draws them as a client would", async () => {
    await bot("sendRichMessageDraft", {
      chat_id: PLAYGROUND_CHAT.id,
      draft_id: 3,
      rich_message: { markdown: "<tg-thinking>\n\n⚙️ web\\_fetch\n\n</tg-thinking>\n\n| a | b |\n|---|---|\n| 1 | 2 |" },
      can_stop: true,
    });
    const draft = (await playground("state")).json.draft!;
    expect(draft).toMatchObject({ id: 3, rich: { markdown: expect.any(String) }, canStop: true });
    expect(draft.richHtml).toMatch(/<details class="thinking" open><summary>Thinking<\/summary>[\s\S]*web_fetch/);
    expect(draft.richHtml).toContain("<table>");
    const rich = {
      markdown:
        "# Plan\n\n- [x] done\n- [ ] to do\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\nSo $x^2$, and:\n\n$$E = mc^2$$\n\n<details><summary>More</summary>\n\nHidden.\n\n</details>",
    };
    const sent = await bot("sendRichMessage", { chat_id: PLAYGROUND_CHAT.id, rich_message: rich });
    expect(sent.status).toBe(200);
    const state = (await playground("state")).json;
    expect(state.draft).toBeNull();
    expect(state.messages).toEqual([
      expect.objectContaining({
        id: sent.json.result!.message_id,
        from: "bot",
        rich,
        text: expect.stringContaining("Plan"),
      }),
    ]);
    const html = state.messages[0]!.richHtml!;
    expect(html).toContain("<h1>Plan</h1>");
    expect(html).toMatch(/<input checked="" disabled="" type="checkbox">/);
    expect(html).toMatch(/<th align="left">a<\/th>/);
    expect(html).toContain('<code class="math">x^2</code>');
    expect(html).toContain('<pre class="math">E = mc^2</pre>');
    expect(html).toContain("<details><summary>More</summary>");
  });

  it("sends the bot a stopped_message_generation when the person presses a draft's stop control", async () => {
    expect((await playground("stop", { draftId: 5 })).status).toBe(400);
    await bot("sendRichMessageDraft", {
      chat_id: PLAYGROUND_CHAT.id,
      draft_id: 5,
      rich_message: { markdown: "Working" },
      can_stop: true,
    });
    expect((await playground("stop", { draftId: 5 })).status).toBe(200);
    expect(updates.at(-1)!.body).toMatchObject({
      stopped_message_generation: { chat: { id: PLAYGROUND_CHAT.id, type: "private" }, draft_id: 5 },
    });
    expect((await playground("state")).json.draft).toBeNull();
  });

  it("plays a Bot API server without rich messages when switched", async () => {
    expect((await playground("state")).json.richMessages).toBe(true);
    expect((await playground("telegram", { richMessages: "no" })).status).toBe(400);
    await playground("telegram", { richMessages: false });
    expect((await playground("state")).json.richMessages).toBe(false);
    const refused = await bot("sendRichMessage", { chat_id: PLAYGROUND_CHAT.id, rich_message: { markdown: "x" } });
    expect(refused.json).toEqual({ ok: false, error_code: 404, description: "Not Found" });
    await playground("telegram", { richMessages: true });
    expect(
      (await bot("sendRichMessage", { chat_id: PLAYGROUND_CHAT.id, rich_message: { markdown: "x" } })).status,
    ).toBe(200);
  });

  it("keeps a second chat, the friend not allowed yet, apart; unknown chats are refused", async () => {
    const friend = PLAYGROUND_CHATS[1].id;
    await playground("send", { chat: friend, text: "/pair" });
    expect(updates.at(-1)!.body).toMatchObject({
      message: { chat: { id: friend }, from: { id: friend }, text: "/pair" },
    });
    await bot("sendMessage", { chat_id: friend, text: "Your pairing code is ABCD-EFGH" });
    expect((await bot("sendMessage", { chat_id: 42, text: "who?" })).json.description).toContain("chat not found");
    const friendState = (await playground(`state?chat=${friend}`)).json;
    expect(friendState.messages.map((message) => message.text)).toEqual(["/pair", "Your pairing code is ABCD-EFGH"]);
    expect(friendState.chats.map((chat) => chat.messages)).toEqual([0, 2, 0, 0]);
    expect((await playground("state")).json.messages).toEqual([]);
    expect((await playground("state?chat=42")).status).toBe(404);
  });

  it("answers a long poll as soon as something changes", async () => {
    const { version } = (await playground("state")).json as { version: number };
    const waiting = playground(`state?since=${version}`);
    await bot("sendMessage", { chat_id: PLAYGROUND_CHAT.id, text: "now" });
    const state = (await waiting).json;
    expect(state.version).toBeGreaterThan(version);
    expect(state.messages.at(-1)?.text).toBe("now");
  });

  it("shows a voice message the bot uploads with sendVoice, and serves its audio to the page", async () => {
    const api = new Api(TOKEN, { apiRoot: standIn.url });
    const ogg = silentOggOpus({ seconds: 1 });
    const sent = await api.sendVoice(PLAYGROUND_CHAT.id, new InputFile(ogg, "answer.ogg"), { caption: "🔊 spoken" });
    const [message] = (await playground("state")).json.messages;
    expect(message).toMatchObject({
      id: sent.message_id,
      from: "bot",
      text: "🔊 spoken",
      voice: { url: `voice/sent-${sent.message_id}` },
    });
    const audio = await fetch(`${standIn.url}/playground/voice?id=sent-${sent.message_id}`);
    expect(audio.headers.get("content-type")).toBe("audio/ogg");
    expect(new Uint8Array(await audio.arrayBuffer())).toEqual(ogg);
  });

  it("sends a 🎤 voice note as a voice update whose file the bot can download, carrying what was typed", async () => {
    await playground("send", { text: "what time is it?", voice: true });
    const voice = (updates.at(-1)!.body.message as { voice: { file_id: string; mime_type: string } }).voice;
    expect(voice.mime_type).toBe("audio/ogg");
    const file = await bot("getFile", { file_id: voice.file_id });
    const path = (file.json.result as unknown as { file_path: string }).file_path;
    const bytes = new Uint8Array(await (await fetch(`${standIn.url}/file/bot${TOKEN}/${path}`)).arrayBuffer());
    expect(oggOpusComments(bytes)).toEqual({ TRANSCRIPT: "what time is it?" });
    expect((await fetch(`${standIn.url}/file/botwrong/${path}`)).status).toBe(404);
    expect((await playground("state")).json.messages[0]).toMatchObject({ from: "user", text: "🎤 what time is it?" });
  });

  it("the family group the bot is in: a message as you or your friend reaches the webhook, and the bot answers there", async () => {
    const family = PLAYGROUND_FAMILY_CHAT.id;
    await playground("send", {
      chat: family,
      text: "@playground_bot suggest a dinner for tonight",
      as: PLAYGROUND_CHATS[1].id,
    });
    const message = updates.at(-1)!.body.message as { chat: unknown; from: unknown; text: string };
    expect(message).toMatchObject({
      chat: { id: family, type: "group", title: "Family group" },
      from: { id: PLAYGROUND_CHATS[1].id, first_name: "A friend" },
      text: "@playground_bot suggest a dinner for tonight",
    });
    expect((await bot("sendMessage", { chat_id: family, text: "Pasta?" })).status).toBe(200);
    const state = (await playground(`state?chat=${family}`)).json;
    expect(state.messages.map((shown) => [shown.from, shown.text, shown.by])).toEqual([
      ["user", "@playground_bot suggest a dinner for tonight", "A friend"],
      ["bot", "Pasta?", undefined],
    ]);
  });

  it("a group the bot is not in: only naming the bot summons it, as a guest query it answers there", async () => {
    const group = PLAYGROUND_GUEST_CHAT.id;
    await playground("send", { chat: group, text: "lunch at noon?" });
    expect(updates).toHaveLength(0);
    await playground("send", { chat: group, text: "@playground_bot what is 2+2?", as: PLAYGROUND_CHATS[1].id });
    const guest = updates.at(-1)!.body.guest_message as { guest_query_id: string; chat: unknown; from: unknown };
    expect(guest).toMatchObject({
      chat: { id: group, type: "group" },
      from: { id: PLAYGROUND_CHATS[1].id },
      text: "@playground_bot what is 2+2?",
    });
    const answer = {
      guest_query_id: guest.guest_query_id,
      result: {
        type: "article",
        id: "a1",
        title: "Answer",
        input_message_content: { message_text: "<b>4</b>", parse_mode: "HTML" },
      },
    };
    expect((await bot("answerGuestQuery", answer)).status).toBe(200);
    // A query is answered once.
    expect((await bot("answerGuestQuery", answer)).json.description).toContain("query ID is invalid");
    const messages = (await playground(`state?chat=${group}`)).json.messages;
    expect(messages.map((message) => [message.from, message.text, message.by])).toEqual([
      ["user", "lunch at noon?", "You"],
      ["user", "@playground_bot what is 2+2?", "A friend"],
      ["bot", "<b>4</b>", "A friend"],
    ]);
  });
});
