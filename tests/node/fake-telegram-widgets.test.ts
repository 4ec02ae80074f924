import { createHash } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type Fakes, startFakes, type TelegramReport, type TelegramSwitches } from "../fakes/server.ts";

/**
 * The fake Telegram at Bot API 10.4 and 10.5: HTML widgets and their limits, widget queries, ephemeral replies to a
 * button press, and the bot's settings (setMySettings, getMe's BotFullInfo). Each accepted as documented and
 * refused as Telegram refuses (where the docs name no words, the fake's own: see scripts/bot-api/widget-limits.ts).
 */
const fakes: Fakes = await startFakes();
afterAll(() => fakes.close());
afterEach(async () => {
  await fetch(`${fakes.url}/__control/reset`, { method: "POST" });
});

const PRIVATE = 1001;
const GROUP = -2001;
const WIDGET = `<div id="n">0</div><button id="b">+1</button><script>b.onclick=()=>TelegramWidget.request("tap")</script>`;

interface Answer {
  status: number;
  ok: boolean;
  result?: Record<string, unknown> & { message_id?: number };
  description?: string;
  parameters?: { retry_after?: number };
}

async function call(method: string, params: Record<string, unknown> = {}): Promise<Answer> {
  const response = await fetch(`${fakes.url}/telegram/bot123:TEST/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  return { status: response.status, ...((await response.json()) as Omit<Answer, "status">) };
}

async function control(switches?: TelegramSwitches): Promise<TelegramReport> {
  const response = await fetch(`${fakes.url}/__control/telegram`, {
    method: switches ? "POST" : "GET",
    ...(switches ? { body: JSON.stringify(switches) } : {}),
  });
  return (await response.json()) as TelegramReport;
}

async function messages(chatId: number): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${fakes.url}/__control/telegram/messages?chatId=${chatId}`);
  return ((await response.json()) as { messages: Record<string, unknown>[] }).messages;
}

/** Text zlib hardly shrinks (to about 76%): base64 of a hash chain, `bytes` long. */
function incompressible(bytes: number): string {
  let text = "";
  let seed = "widget";
  while (text.length < bytes) {
    seed = createHash("sha256").update(seed).digest("base64");
    text += seed;
  }
  return text.slice(0, bytes);
}

async function sentWidget(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const answer = await call("sendWidget", { chat_id: PRIVATE, html: WIDGET, ...extra });
  expect(answer.ok, answer.description).toBe(true);
  return answer.result!;
}

describe("sendWidget", () => {
  it("sends a widget to a private chat, protected from forwarding, with its data and caption", async () => {
    const message = await sentWidget({ width: 300, public_data: "{}", chat_data: "3", caption: "Counter" });
    expect(message).toMatchObject({
      chat: { id: PRIVATE, type: "private" },
      widget: { html: WIDGET, width: 300, public_data: "{}", chat_data: "3" },
      has_protected_content: true,
      caption: "Counter",
    });
    expect(message.widget).not.toHaveProperty("id");
  });

  it("refuses a group: widgets go to private chats only", async () => {
    const answer = await call("sendWidget", { chat_id: GROUP, html: WIDGET });
    expect(answer).toMatchObject({ status: 400, description: "Bad Request: INPUT_MEDIA_WIDGET_NOT_ALLOWED" });
    expect(await messages(GROUP)).toEqual([]);
  });

  it("holds the HTML to 32,768 bytes and to 4,096 bytes after zlib at its maximum level", async () => {
    const tooLarge = "Bad Request: INPUT_MEDIA_WIDGET_TOO_LARGE";
    // 30,000 bytes that compress to a few dozen: the raw limit is not the only one.
    expect((await call("sendWidget", { chat_id: PRIVATE, html: `<p>${"a".repeat(29_993)}</p>` })).ok).toBe(true);
    expect((await call("sendWidget", { chat_id: PRIVATE, html: "a".repeat(32_769) })).description).toBe(tooLarge);
    // 6,000 bytes that hardly compress (about 4,560 after zlib): over the 4,096, far under the 32,768.
    expect((await call("sendWidget", { chat_id: PRIVATE, html: incompressible(6000) })).description).toBe(tooLarge);
    expect((await call("sendWidget", { chat_id: PRIVATE, html: incompressible(5000) })).ok).toBe(true);
    expect((await call("sendWidget", { chat_id: PRIVATE, html: "" })).description).toBe(
      "Bad Request: widget HTML must be non-empty",
    );
  });

  it("holds public and chat data to 1,024 bytes, counted in bytes", async () => {
    expect((await call("sendWidget", { chat_id: PRIVATE, html: WIDGET, chat_data: "x".repeat(1024) })).ok).toBe(true);
    // 513 "é" are 513 characters and 1,026 bytes.
    for (const field of ["chat_data", "public_data"]) {
      const answer = await call("sendWidget", { chat_id: PRIVATE, html: WIDGET, [field]: "é".repeat(513) });
      expect(answer.description).toBe("Bad Request: WIDGET_DATA_TOO_LONG");
    }
  });

  it("sends a widget that reaches for the network, as Telegram does, and records what it reaches for", async () => {
    const html = `<img src="https://example.com/a.png"><img src="data:image/png;base64,AA"><a href="#top">top</a>
<style>b{background:url('//cdn.example.com/x.png')}</style><script>fetch("/api");new WebSocket("wss://x")</script>`;
    expect((await call("sendWidget", { chat_id: PRIVATE, html })).ok).toBe(true);
    expect((await control()).violations.map((violation) => violation.text)).toEqual([
      "sendWidget: widget network use html: https://example.com/a.png",
      "sendWidget: widget network use html: //cdn.example.com/x.png",
      "sendWidget: widget network use html: fetch",
      "sendWidget: widget network use html: WebSocket",
    ]);
  });
});

describe("shared widgets", () => {
  it("sends a shared widget again by its id, with one public data for all its messages", async () => {
    const first = await sentWidget({ is_shared: true, public_data: "v1" });
    const id = (first.widget as { id?: string }).id;
    expect(id).toEqual(expect.any(String));
    const again = await call("sendSharedWidget", { chat_id: PRIVATE, widget_id: id, chat_data: "mine" });
    expect(again.result).toMatchObject({ widget: { html: WIDGET, id, public_data: "v1", chat_data: "mine" } });

    expect(await call("editSharedWidgetData", { widget_id: id, public_data: "v2", cache_time: 5 })).toMatchObject({
      ok: true,
      result: true,
    });
    const shown = (await messages(PRIVATE)).map((message) => (message.widget as { public_data?: string }).public_data);
    expect(shown).toEqual(["v2", "v2"]);
    // "A shared widget can be edited at most once per second."
    expect(await call("editSharedWidgetData", { widget_id: id, public_data: "v3" })).toMatchObject({
      status: 429,
      description: "Too Many Requests: retry after 1",
      parameters: { retry_after: 1 },
    });
  });

  it("refuses a widget id it never gave, and a shared widget in a group", async () => {
    expect((await call("sendSharedWidget", { chat_id: PRIVATE, widget_id: "nope" })).description).toBe(
      "Bad Request: WIDGET_ID_INVALID",
    );
    expect((await call("editSharedWidgetData", { widget_id: "nope", public_data: "" })).description).toBe(
      "Bad Request: WIDGET_ID_INVALID",
    );
    const id = ((await sentWidget({ is_shared: true })).widget as { id: string }).id;
    expect((await call("sendSharedWidget", { chat_id: GROUP, widget_id: id })).description).toBe(
      "Bad Request: INPUT_MEDIA_WIDGET_NOT_ALLOWED",
    );
  });
});

describe("editMessageWidgetData", () => {
  it("changes a widget's chat data, or its public data, and leaves what is omitted", async () => {
    const { message_id } = await sentWidget({ public_data: "p", chat_data: "c" });
    expect((await call("editMessageWidgetData", { chat_id: PRIVATE, message_id, chat_data: "c2" })).result).toBe(true);
    expect((await messages(PRIVATE))[0]).toMatchObject({ widget: { public_data: "p", chat_data: "c2" } });
    expect((await call("editMessageWidgetData", { chat_id: PRIVATE, message_id, public_data: "" })).ok).toBe(true);
    expect((await messages(PRIVATE))[0]!.widget).not.toHaveProperty("public_data");
  });

  it("refuses a message that is not there, one without a widget, and data over 1,024 bytes", async () => {
    expect((await call("editMessageWidgetData", { chat_id: PRIVATE, message_id: 9, chat_data: "x" })).description).toBe(
      "Bad Request: message to edit not found",
    );
    const text = await call("sendMessage", { chat_id: PRIVATE, text: "plain" });
    const params = { chat_id: PRIVATE, message_id: text.result!.message_id, chat_data: "x" };
    expect((await call("editMessageWidgetData", params)).description).toBe(
      "Bad Request: there is no widget in the message to edit",
    );
    const { message_id } = await sentWidget();
    const tooLong = { chat_id: PRIVATE, message_id, public_data: "x".repeat(1025) };
    expect((await call("editMessageWidgetData", tooLong)).description).toBe("Bad Request: WIDGET_DATA_TOO_LONG");
  });
});

describe("answerWidgetQuery", () => {
  it("answers a query from the last 15 seconds once, and refuses an old, unknown or answered one", async () => {
    const tooOld = "Bad Request: query is too old and response timeout expired or query ID is invalid";
    await control({ openQuery: { kind: "widget", id: "q1", chatId: PRIVATE, fromId: PRIVATE, ageMs: 14_000 } });
    await control({ openQuery: { kind: "widget", id: "q2", chatId: PRIVATE, fromId: PRIVATE, ageMs: 16_000 } });
    expect(await call("answerWidgetQuery", { widget_query_id: "q1", data: "1" })).toMatchObject({ result: true });
    expect((await call("answerWidgetQuery", { widget_query_id: "q1" })).description).toBe(tooOld);
    expect((await call("answerWidgetQuery", { widget_query_id: "q2" })).description).toBe(tooOld);
    expect((await call("answerWidgetQuery", { widget_query_id: "q3" })).description).toBe(tooOld);
  });

  it("holds the answer to 1,024 bytes", async () => {
    await control({ openQuery: { kind: "widget", id: "q4" } });
    expect((await call("answerWidgetQuery", { widget_query_id: "q4", data: "x".repeat(1025) })).description).toBe(
      "Bad Request: WIDGET_DATA_TOO_LONG",
    );
    expect((await call("answerWidgetQuery", { widget_query_id: "q4", data: "x".repeat(1024) })).ok).toBe(true);
  });
});

describe("ephemeral replies to a button press (Bot API 10.4)", () => {
  const tooOld = "Bad Request: query is too old and response timeout expired or query ID is invalid";

  it("sends one with callback_query_id alone, in the chat of the press (a group too), to the person who pressed", async () => {
    await control({ openQuery: { kind: "callback", id: "press-1", chatId: GROUP, fromId: 42 } });
    const answer = await call("sendMessage", {
      text: "only you see this",
      ephemeral_message_parameters: { callback_query_id: "press-1" },
    });
    expect(answer.ok, answer.description).toBe(true);
    expect(answer.result).toMatchObject({
      chat: { id: GROUP },
      text: "only you see this",
      ephemeral_message_id: expect.any(Number),
      receiver_user: { id: 42 },
    });
    // Seen by one person: not one of the chat's messages.
    expect(await messages(GROUP)).toEqual([]);
    expect((await control()).violations).toEqual([]);
  });

  it("refuses a press it does not know or that is too old, and a reply that names no one", async () => {
    await control({ openQuery: { kind: "callback", id: "old", chatId: PRIVATE, fromId: PRIVATE, ageMs: 16_000 } });
    for (const id of ["unknown", "old"]) {
      const answer = await call("sendMessage", { text: "x", ephemeral_message_parameters: { callback_query_id: id } });
      expect(answer.description).toBe(tooOld);
    }
    const noOne = await call("sendMessage", { chat_id: GROUP, text: "x", ephemeral_message_parameters: {} });
    expect(noOne.description).toBe("Bad Request: USER_ID_INVALID");
    const named = await call("sendMessage", {
      chat_id: GROUP,
      text: "x",
      ephemeral_message_parameters: { receiver_user_id: 7 },
    });
    expect(named.result).toMatchObject({ receiver_user: { id: 7 } });
  });
});

describe("setMySettings and getMe (Bot API 10.5)", () => {
  it("reports the bot as a BotFullInfo with a new bot's settings", async () => {
    expect((await call("getMe")).result).toEqual({
      id: 123456,
      is_bot: true,
      first_name: "Testbot",
      username: "testbot",
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_guest_queries: false,
      supports_join_request_queries: false,
      needs_inline_query_location: false,
      has_topic_sidebar: false,
      active_usernames: ["testbot"],
    });
  });

  it("keeps what setMySettings changes, leaves the rest, and getMe reports it", async () => {
    const set = await call("setMySettings", {
      supports_guest_queries: true,
      inline_query_placeholder: "Ask…",
      has_topic_sidebar: true,
      callback_query_mode: "inline",
    });
    expect(set).toMatchObject({ ok: true, result: true });
    expect((await call("getMe")).result).toMatchObject({
      supports_guest_queries: true,
      inline_query_placeholder: "Ask…",
      can_join_groups: true,
      // A sidebar of topics needs topics.
      has_topic_sidebar: false,
    });
    await call("setMySettings", { has_topics_enabled: true });
    expect((await call("getMe")).result).toMatchObject({ has_topics_enabled: true, has_topic_sidebar: true });
    expect(fakes.telegram.settings.callbackQueryMode).toBe("inline");
  });

  it("refuses a callback query mode it does not have and records a setting the Bot API does not know", async () => {
    expect((await call("setMySettings", { callback_query_mode: "sideways" })).description).toBe(
      "Bad Request: CALLBACK_QUERY_MODE_INVALID",
    );
    expect((await call("setMySettings", { privacy_mode: false })).ok).toBe(true);
    expect((await control()).violations.map((violation) => violation.text)).toEqual([
      "setMySettings: unknown field privacy_mode",
    ]);
  });
});
