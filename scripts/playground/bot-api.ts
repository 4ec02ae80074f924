/**
 * A local stand-in for Telegram's Bot API, for `npm run dev` without a bot token: the Worker's Bot API calls
 * (TELEGRAM_API_BASE_URL points here) land in one chat's state, and the console's playground page reads that state
 * and posts what a person types, which this server turns into a Telegram update for the real webhook. Plain,
 * erasable TypeScript: Node runs it with type stripping.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { multipartFields, readBodyBytes } from "../read-body.ts";
import { silentOggOpus } from "../stand-in-model/ogg-opus.ts";

/**
 * The playground's private chats, each with its person (whose user id is the chat id): you, allowed and an admin,
 * and a friend the bot does not know yet, to try pairing with (`/pair`, then `/approve` or the console).
 */
export const PLAYGROUND_CHATS = [
  { id: 100_001, firstName: "You", note: "allowed, and an admin" },
  { id: 100_002, firstName: "A friend", note: "new here: try /pair" },
] as const;
export const PLAYGROUND_CHAT = PLAYGROUND_CHATS[0];
/**
 * A group the bot is not in (Bot API 10.0 guest mode): nothing said there reaches the bot unless it names the bot,
 * which makes a `guest_message` update; the bot answers with answerGuestQuery, posted here.
 */
export const PLAYGROUND_GUEST_CHAT = {
  id: -100_003,
  firstName: "Friends' group",
  note: "the bot is not in it: write @playground_bot …",
} as const;
const ALL_CHATS = [...PLAYGROUND_CHATS, PLAYGROUND_GUEST_CHAT];
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
  /** A voice message (sendVoice, or the person's 🎤): where the page plays it. */
  voice?: { url: string };
  /** User messages in the guest chat: who wrote it. Bot messages there: posted as a guest, summoned by this person. */
  by?: string;
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
    ALL_CHATS.map((chat) => [chat.id, { messages: [], draft: null, typingUntil: 0, notes: [] }]),
  );
  /** Voice messages and voice notes by id: their bytes, played by the page and downloaded by the bot (getFile). */
  const audio = new Map<string, { bytes: Uint8Array; type: string }>();
  /** Open guest queries: which chat each was summoned in, and by whom. */
  const guestQueries = new Map<string, { chatId: number; by: string }>();
  /** Which chat a button press came from, so its callback answer shows there. */
  const pressedIn = new Map<string, number>();
  const waiters = new Set<() => void>();
  let version = 0;
  let nextMessageId = 1;
  // Not 1: the chat objects keep the update ids they saw (a redelivery is a no-op), and survive a restart of `npm run dev`.
  let nextUpdateId = Date.now();
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
    if (id === PLAYGROUND_GUEST_CHAT.id) return { id, type: "group", title: PLAYGROUND_GUEST_CHAT.firstName };
    const known = PLAYGROUND_CHATS.find((chat) => chat.id === id)!;
    return { id, type: "private", first_name: known.firstName };
  };
  const personOf = (id: number) => ({
    id,
    is_bot: false,
    first_name: PLAYGROUND_CHATS.find((chat) => chat.id === id)?.firstName ?? "Someone",
  });

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
    if (method === "getFile") {
      const fileId = String(body.file_id ?? "");
      const file = audio.get(fileId);
      if (!file) return { refusal: "Bad Request: invalid file_id" };
      const result = { file_id: fileId, file_unique_id: `${fileId}-u`, file_size: file.bytes.length };
      return { result: { ...result, file_path: `voice/${fileId}.ogg` } };
    }
    if (method === "answerGuestQuery") {
      const query = guestQueries.get(String(body.guest_query_id ?? ""));
      if (!query)
        return { refusal: "Bad Request: query is too old and response timeout expired or query ID is invalid" };
      guestQueries.delete(String(body.guest_query_id));
      const result = (body.result ?? {}) as {
        input_message_content?: { message_text?: unknown; parse_mode?: unknown };
      };
      const content = result.input_message_content ?? {};
      const state = chats.get(query.chatId)!;
      const id = nextMessageId++;
      state.messages.push({
        id,
        from: "bot",
        text: String(content.message_text ?? ""),
        html: content.parse_mode === "HTML",
        buttons: [],
        edited: false,
        at: Date.now(),
        by: query.by,
      });
      changed();
      return { result: { inline_message_id: `playground-guest-${id}` } };
    }
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
      case "sendVoice": {
        const voice = body.voice;
        if (!isUpload(voice)) return { refusal: "Bad Request: there is no voice in the request" };
        const id = nextMessageId++;
        audio.set(`sent-${id}`, { bytes: voice.bytes, type: voice.type === "audio/mpeg" ? "audio/mpeg" : "audio/ogg" });
        state.messages.push({
          id,
          from: "bot",
          text: typeof body.caption === "string" ? body.caption : "",
          html: false,
          buttons: [],
          edited: false,
          at: Date.now(),
          voice: { url: `voice/sent-${id}` },
        });
        changed();
        return { result: { message_id: id, date: seconds(), chat, from: BOT, voice: { file_id: `sent-${id}` } } };
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
    if (path === "voice") {
      const file = audio.get(url.searchParams.get("id") ?? "");
      if (!file) return send(response, 404, { error: "no such voice message" });
      response.writeHead(200, { "content-type": file.type, "content-length": String(file.bytes.length) });
      response.end(file.bytes);
      return;
    }
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
        chats: ALL_CHATS.map((chat) => ({
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
    // In the group the bot is not in, the page says who writes (you, or your friend the bot may not know).
    const person = personOf(chatId === PLAYGROUND_GUEST_CHAT.id ? Number(input.as ?? PLAYGROUND_CHAT.id) : chatId);
    if (path === "send") {
      const text = typeof input.text === "string" ? input.text.trim().slice(0, 4096) : "";
      if (text === "") return send(response, 400, { error: "empty message" });
      const id = nextMessageId++;
      const spoken = input.voice === true && chatId !== PLAYGROUND_GUEST_CHAT.id;
      if (spoken) {
        // A voice note: a silent recording that carries what you typed, which only the stand-in model "hears".
        audio.set(`note-${id}`, {
          bytes: silentOggOpus({ seconds: 2, comments: { TRANSCRIPT: text } }),
          type: "audio/ogg",
        });
      }
      state.messages.push({
        id,
        from: "user",
        text: spoken ? `🎤 ${text}` : text,
        html: false,
        buttons: [],
        edited: false,
        at: Date.now(),
        ...(spoken ? { voice: { url: `voice/note-${id}` } } : {}),
        ...(chatId === PLAYGROUND_GUEST_CHAT.id ? { by: person.first_name } : {}),
      });
      changed();
      if (chatId === PLAYGROUND_GUEST_CHAT.id) {
        // The bot is not a member: only naming it reaches it, as a guest query.
        if (!new RegExp(`@${BOT.username}\\b`, "i").test(text)) return send(response, 200, { ok: true, id });
        const queryId = `playground-guest-${id}`;
        guestQueries.set(queryId, { chatId, by: person.first_name });
        await deliver(state, {
          guest_message: { message_id: id, date: seconds(), chat, from: person, text, guest_query_id: queryId },
        });
        return send(response, 200, { ok: true, id });
      }
      if (spoken) {
        const file = audio.get(`note-${id}`)!;
        await deliver(state, {
          message: {
            message_id: id,
            date: seconds(),
            chat,
            from: person,
            voice: {
              file_id: `note-${id}`,
              file_unique_id: `note-${id}-u`,
              duration: 2,
              mime_type: "audio/ogg",
              file_size: file.bytes.length,
            },
          },
        });
        return send(response, 200, { ok: true, id });
      }
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
      const bytes = await readBodyBytes(request);
      const raw = bytes.toString("utf8");
      const playgroundPath = /^\/playground\/(\w+)$/.exec(url.pathname)?.[1];
      if (playgroundPath) return await playground(playgroundPath, url, raw, response);
      // The bot downloads a voice note it was sent (getFile's file_path).
      const download = /^\/file\/bot([^/]+)\/voice\/([\w-]+)\.ogg$/.exec(url.pathname);
      if (download) {
        const file = download[1] === options.botToken ? audio.get(download[2]!) : undefined;
        if (!file) return send(response, 404, { ok: false, error_code: 404, description: "Not Found" });
        response.writeHead(200, { "content-type": file.type });
        response.end(file.bytes);
        return;
      }
      const call = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (!call) return send(response, 404, { ok: false, error_code: 404, description: "Not Found" });
      if (call[1] !== options.botToken) {
        return send(response, 401, { ok: false, error_code: 401, description: "Unauthorized" });
      }
      const contentType = request.headers["content-type"] ?? "";
      // Uploads (sendVoice) come as multipart form data; everything else as JSON.
      const payload = contentType.startsWith("multipart/form-data") ? multipartFields(contentType, bytes) : parse(raw);
      const answer = botMethod(call[2]!, payload);
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

function isUpload(value: unknown): value is { bytes: Uint8Array; type: string } {
  return value !== null && typeof value === "object" && "bytes" in value && value.bytes instanceof Uint8Array;
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
