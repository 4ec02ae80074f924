import type { Bot } from "../../bench/bot.ts";
import type { Fakes, RecordedRequest, ScriptedResponse, Service } from "../../tests/fakes/server.ts";
import type { FixtureChat } from "./fixture-bot.ts";

/**
 * A person's side of a fixture's bot: updates to its webhook, the admin API, and what the fakes received. Used by the
 * recorder (against an old release) and by the upgrade test (against the current code).
 */
export class BotClient {
  readonly bot: Bot;
  readonly fakes: Fakes;
  private nextUpdateId: number;

  /** Update and message ids start at `firstUpdateId`: a chat's inbox refuses an update id it has seen. */
  constructor(bot: Bot, fakes: Fakes, firstUpdateId: number) {
    this.bot = bot;
    this.fakes = fakes;
    this.nextUpdateId = firstUpdateId;
  }

  /** The last update id sent. */
  get lastUpdateId(): number {
    return this.nextUpdateId - 1;
  }

  /** Posts a text message (or a photo with this caption) from the chat's person; fails unless the webhook takes it. */
  async say(chat: FixtureChat, text: string, options: { photo?: string } = {}): Promise<void> {
    const id = this.nextUpdateId++;
    const content = options.photo
      ? {
          caption: text,
          photo: [
            { file_id: `${options.photo}-small`, file_unique_id: `${options.photo}-s`, width: 90, height: 60 },
            { file_id: `${options.photo}-large`, file_unique_id: `${options.photo}-l`, width: 1280, height: 853 },
          ],
        }
      : { text };
    const message = {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: {
        id: chat.chatId,
        type: chat.type,
        ...(chat.type === "private" ? { first_name: chat.name } : { title: chat.name }),
        ...(chat.threadId !== undefined ? { is_forum: true } : {}),
      },
      from: { id: chat.fromId, is_bot: false, first_name: chat.fromId === chat.chatId ? chat.name : "Ada" },
      ...content,
      ...(chat.threadId !== undefined ? { message_thread_id: chat.threadId, is_topic_message: true } : {}),
    };
    const response = await fetch(`${this.bot.url}/telegram/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": this.bot.secret },
      body: JSON.stringify({ update_id: id, message }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`the webhook answered ${response.status} to “${text}”`);
  }

  /** An admin API call's JSON; fails unless it answers `status`. */
  async admin<T = unknown>(path: string, init: { method?: string; body?: unknown; status?: number } = {}): Promise<T> {
    const response = await fetch(`${this.bot.url}/admin${path}`, {
      method: init.method ?? "GET",
      headers: {
        authorization: `Bearer ${this.bot.adminToken}`,
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    if (response.status !== (init.status ?? 200)) {
      throw new Error(`${init.method ?? "GET"} /admin${path} answered ${response.status}: ${text.slice(0, 300)}`);
    }
    return (text === "" ? undefined : JSON.parse(text)) as T;
  }

  /** Queues scripted answers of a fake (a model's tool call, Telegram's refusal), as the tests do. */
  async script(service: Service, responses: ScriptedResponse[]): Promise<void> {
    const response = await fetch(`${this.fakes.url}/__control/script`, {
      method: "POST",
      body: JSON.stringify({ service, responses }),
    });
    if (!response.ok) throw new Error(`scripting the fake ${service} failed: ${response.status}`);
  }

  /** Switches the fake Telegram (an outage, or its end). */
  async telegram(switches: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${this.fakes.url}/__control/telegram`, {
      method: "POST",
      body: JSON.stringify(switches),
    });
    if (!response.ok) throw new Error(`switching the fake Telegram failed: ${response.status}`);
  }

  /** The first request the fakes received, from `from` on, that `match` accepts, waiting for it up to `timeoutMs`. */
  async request(
    what: string,
    match: (request: RecordedRequest) => boolean,
    options: { from?: number; timeoutMs?: number } = {},
  ): Promise<RecordedRequest> {
    const found = await this.until(what, () => this.fakes.requests.slice(options.from ?? 0).find(match), options);
    return found;
  }

  /** Polls `check` every 50 ms until it gives a value, or fails saying what was awaited. */
  async until<T>(
    what: string,
    check: () => T | undefined | Promise<T | undefined>,
    options: { timeoutMs?: number } = {},
  ) {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`waited in vain for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Where the fakes' log ends now: later waits look only at what comes after. */
  mark(): number {
    return this.fakes.requests.length;
  }
}

/** A model request (OpenAI's chat completions or Anthropic's messages) whose body contains `text`. */
export function modelCallWith(text: string): (request: RecordedRequest) => boolean {
  return (request) =>
    (request.service === "openai" && request.method.endsWith("/chat/completions")) ||
    (request.service === "anthropic" && request.method.endsWith("/messages"))
      ? JSON.stringify(request.body).includes(text)
      : false;
}

/** A message the bot delivered to the chat (plain or rich, not a draft or an edit) whose text contains `text`. */
export function deliveredTo(chat: FixtureChat, text: string): (request: RecordedRequest) => boolean {
  return (request) =>
    request.service === "telegram" &&
    request.refusal === undefined &&
    (request.method === "sendMessage" || request.method === "sendRichMessage") &&
    String((request.body as { chat_id?: unknown }).chat_id) === String(chat.chatId) &&
    messageText(request).includes(text);
}

/** The text of a sent message, plain or rich. */
export function messageText(request: RecordedRequest): string {
  const body = request.body as { text?: unknown; rich_message?: { markdown?: unknown; html?: unknown } };
  return String(body.text ?? body.rich_message?.markdown ?? body.rich_message?.html ?? "");
}
