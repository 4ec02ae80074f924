/**
 * A local stand-in for Telegram's Bot API, for `npm run dev` without a bot token: the Worker's Bot API calls
 * (TELEGRAM_API_BASE_URL points here) land in one chat's state, and the console's playground page reads that state
 * and posts what a person types, which this server turns into a Telegram update for the real webhook. Plain,
 * erasable TypeScript: Node runs it with type stripping.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "../read-body.ts";

/**
 * The playground's private chats, each with its person (whose user id is the chat id): you, allowed and an admin,
 * and a friend the bot does not know yet, to try pairing with (`/pair`, then `/approve` or the console).
 */
export const PLAYGROUND_CHATS = [
  { id: 100_001, firstName: "You", note: "allowed, and an admin" },
  { id: 100_002, firstName: "A friend", note: "new here: try /pair" },
] as const;
export const PLAYGROUND_CHAT = PLAYGROUND_CHATS[0];
const BOT = { id: 100_000, is_bot: true, first_name: "Playground bot", username: "playground_bot" };
const TYPING_MS = 5000;

export interface ShownMessage {
  id: number;
  from: "user" | "bot";
  text: string;
  /** Bot messages: Telegram HTML when sent with parse_mode HTML. */
  html: boolean;
  buttons: { text: string; data: string }[][];
  reaction?: string;
  edited: boolean;
  at: number;
}

export interface ChatState {
  messages: ShownMessage[];
  /** A private chat's draft (sendMessageDraft): shown until the final message replaces it. */
  draft: { id: number; text: string } | null;
  /** While the bot is "typing…" (sendChatAction), until this time. */
  typingUntil: number;
  /** Callback answers and delivery problems, newest last (the page shows each once). */
  notes: { id: number; text: string }[];
}

/** What the page reads: one chat's state, the list of chats, and a version to long-poll on. */
export interface PlaygroundState extends ChatState {
  version: number;
  chat: number;
  chats: { id: number; name: string; note: string; messages: number }[];
  typing: boolean;
}

export interface BotApiStandIn {
  url: string;
  chats: Map<number, ChatState>;
  close(): Promise<void>;
}

export interface StandInOptions {
  botToken: string;
  /** The Worker's webhook, and the secret it wants in `X-Telegram-Bot-Api-Secret-Token`. */
  webhookUrl: string;
  webhookSecret: string;
  port?: number;
}

export async function startBotApiStandIn(options: StandInOptions): Promise<BotApiStandIn> {
  const chats = new Map<number, ChatState>(
    PLAYGROUND_CHATS.map((chat) => [chat.id, { messages: [], draft: null, typingUntil: 0, notes: [] }]),
  );
  /** Which chat a button press came from, so its callback answer shows there. */
  const pressedIn = new Map<string, number>();
  const waiters = new Set<() => void>();
  let version = 0;
  let nextMessageId = 1;
  let nextUpdateId = 1;
  let nextNoteId = 1;

  const changed = () => {
    version += 1;
    for (const wake of [...waiters]) wake();
  };
  const note = (state: ChatState, text: string) => {
    state.notes = [...state.notes.slice(-19), { id: nextNoteId++, text }];
    changed();
  };
  const find = (state: ChatState, id: unknown) => state.messages.find((message) => message.id === id);

  const deliver = async (state: ChatState, update: Record<string, unknown>) => {
    try {
      const response = await fetch(options.webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": options.webhookSecret },
        body: JSON.stringify({ update_id: nextUpdateId++, ...update }),
      });
      if (!response.ok)
        note(state, `The webhook answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    } catch (error) {
      note(state, `The webhook could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const chatOf = (id: number) => {
    const known = PLAYGROUND_CHATS.find((chat) => chat.id === id)!;
    return { id, type: "private", first_name: known.firstName };
  };
  const personOf = (id: number) => ({ id, is_bot: false, first_name: chatOf(id).first_name });

  /** One Bot API method; the answer's `result`, or a Telegram-style refusal. */
  const botMethod = (method: string, body: Record<string, unknown>): { result: unknown } | { refusal: string } => {
    if (method === "getMe") return { result: BOT };
    if (method === "answerCallbackQuery") {
      const state = chats.get(pressedIn.get(String(body.callback_query_id)) ?? PLAYGROUND_CHAT.id)!;
      if (typeof body.text === "string" && body.text !== "") note(state, body.text);
      return { result: true };
    }
    if (["setMyCommands", "setWebhook", "deleteWebhook"].includes(method)) return { result: true };
    if (method === "getWebhookInfo") return { result: { url: options.webhookUrl, pending_update_count: 0 } };
    const chatId = Number(body.chat_id);
    const state = chats.get(chatId);
    if (!state) return { refusal: "Bad Request: chat not found" };
    const chat = chatOf(chatId);
    switch (method) {
      case "sendMessage": {
        const id = nextMessageId++;
        const text = String(body.text ?? "");
        state.messages.push({
          id,
          from: "bot",
          text,
          html: body.parse_mode === "HTML",
          buttons: keyboardOf(body.reply_markup),
          edited: false,
          at: Date.now(),
        });
        // The final message replaces the draft, and the bot is no longer typing.
        state.draft = null;
        state.typingUntil = 0;
        changed();
        return { result: { message_id: id, date: seconds(), chat, from: BOT, text } };
      }
      case "editMessageText": {
        const message = find(state, body.message_id);
        if (!message) return { refusal: "Bad Request: message to edit not found" };
        const text = String(body.text ?? "");
        const buttons = keyboardOf(body.reply_markup);
        if (message.text === text && JSON.stringify(message.buttons) === JSON.stringify(buttons)) {
          return { refusal: "Bad Request: message is not modified" };
        }
        Object.assign(message, { text, html: body.parse_mode === "HTML", buttons, edited: true });
        changed();
        return { result: { message_id: message.id, date: seconds(), chat, from: BOT, text } };
      }
      case "sendMessageDraft":
        state.draft = { id: Number(body.draft_id ?? 0), text: String(body.text ?? "") };
        changed();
        return { result: true };
      case "sendChatAction":
        state.typingUntil = Date.now() + TYPING_MS;
        changed();
        return { result: true };
      case "setMessageReaction": {
        const message = find(state, body.message_id);
        const reactions = Array.isArray(body.reaction) ? (body.reaction as { emoji?: string }[]) : [];
        if (message) {
          message.reaction = reactions[0]?.emoji;
          changed();
        }
        return { result: true };
      }
      case "deleteMessage":
        state.messages = state.messages.filter((message) => message.id !== body.message_id);
        changed();
        return { result: true };
      default:
        return { refusal: `Not Found: the playground does not know ${method}` };
    }
  };

  /** The page's side: read a chat (long-polled), type a message in it, press a button. */
  const playground = async (path: string, url: URL, raw: string, response: ServerResponse) => {
    const input = path === "state" ? Object.fromEntries(url.searchParams) : parse(raw);
    const chatId = Number(input.chat ?? PLAYGROUND_CHAT.id);
    const state = chats.get(chatId);
    if (!state) return send(response, 404, { error: "no such playground chat" });
    if (path === "state") {
      const since = Number(input.since ?? -1);
      if (version <= since) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, 15_000);
          waiters.add(wake);
        });
      }
      const shown: PlaygroundState = {
        ...state,
        version,
        chat: chatId,
        chats: PLAYGROUND_CHATS.map((chat) => ({
          id: chat.id,
          name: chat.firstName,
          note: chat.note,
          messages: chats.get(chat.id)!.messages.length,
        })),
        typing: state.typingUntil > Date.now(),
      };
      return send(response, 200, shown);
    }
    const chat = chatOf(chatId);
    const person = personOf(chatId);
    if (path === "send") {
      const text = typeof input.text === "string" ? input.text.trim().slice(0, 4096) : "";
      if (text === "") return send(response, 400, { error: "empty message" });
      const id = nextMessageId++;
      state.messages.push({ id, from: "user", text, html: false, buttons: [], edited: false, at: Date.now() });
      changed();
      const command = /^\/\w+(@\w+)?/.exec(text);
      await deliver(state, {
        message: {
          message_id: id,
          date: seconds(),
          chat,
          from: person,
          text,
          ...(command ? { entities: [{ type: "bot_command", offset: 0, length: command[0].length }] } : {}),
        },
      });
      return send(response, 200, { ok: true, id });
    }
    if (path === "press") {
      const message = find(state, input.messageId);
      if (!message || typeof input.data !== "string") return send(response, 400, { error: "no such button" });
      const queryId = `playground-${nextUpdateId}`;
      pressedIn.set(queryId, chatId);
      await deliver(state, {
        callback_query: {
          id: queryId,
          from: person,
          chat_instance: "playground",
          data: input.data,
          message: { message_id: message.id, date: seconds(), chat, from: BOT, text: message.text },
        },
      });
      return send(response, 200, { ok: true });
    }
    return send(response, 404, { error: "unknown playground path" });
  };

  const server: Server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? "/", "http://stand-in");
      const raw = await readBody(request);
      const playgroundPath = /^\/playground\/(\w+)$/.exec(url.pathname)?.[1];
      if (playgroundPath) return await playground(playgroundPath, url, raw, response);
      const call = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (!call) return send(response, 404, { ok: false, error_code: 404, description: "Not Found" });
      if (call[1] !== options.botToken) {
        return send(response, 401, { ok: false, error_code: 401, description: "Unauthorized" });
      }
      const answer = botMethod(call[2]!, parse(raw));
      if ("refusal" in answer) return send(response, 400, { ok: false, error_code: 400, description: answer.refusal });
      return send(response, 200, { ok: true, result: answer.result });
    } catch (error) {
      send(response, 500, { ok: false, error_code: 500, description: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    chats,
    close: async () => {
      for (const wake of [...waiters]) wake();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function keyboardOf(markup: unknown): { text: string; data: string }[][] {
  const rows = (markup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  if (!Array.isArray(rows)) return [];
  return rows.map((row: unknown) =>
    (Array.isArray(row) ? row : []).map((button: { text?: unknown; callback_data?: unknown }) => ({
      text: String(button.text ?? ""),
      data: String(button.callback_data ?? ""),
    })),
  );
}

function parse(raw: string): Record<string, unknown> {
  try {
    const value: unknown = raw === "" ? {} : JSON.parse(raw);
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function seconds(): number {
  return Math.floor(Date.now() / 1000);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
