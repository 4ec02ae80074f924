/**
 * A local stand-in for Telegram's Bot API, for `npm run dev` without a bot token: the Worker's Bot API calls
 * (TELEGRAM_API_BASE_URL points here) are answered by the same Telegram-faithful core the tests' fake uses
 * (scripts/bot-api/: methods and fields checked, texts parsed by TDLib's parser, rich messages checked, messages
 * kept per chat), and the console's playground page reads each chat's state and posts what a person types (or says:
 * a voice note), which this server turns into a Telegram update for the real webhook. A third chat is a group the bot
 * is not in, to try guest mode. Plain, erasable TypeScript: Node runs it with type stripping.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BotApi } from "../bot-api/bot-api.ts";
import { ChatStore, type StoredMessage } from "../bot-api/chat-store.ts";
import { readParams } from "../bot-api/params.ts";
import { startTdlib } from "../bot-api/tdlib.ts";
import { describeViolation } from "../bot-api/vocabulary.ts";
import { multipartFields, readBodyBytes } from "../read-body.ts";
import { silentOggOpus } from "../stand-in-model/ogg-opus.ts";
import { richHtml } from "./rich-html.ts";

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
/**
 * A family group the bot is in (allowed, like your chat): mention it (`@playground_bot …`) as yourself or as your
 * friend, to try the people's memory: what you told the bot about yourself in private is known here when you speak.
 */
export const PLAYGROUND_FAMILY_CHAT = {
  id: -100_004,
  firstName: "Family group",
  note: "the bot is in it: mention @playground_bot",
} as const;
const ALL_CHATS = [...PLAYGROUND_CHATS, PLAYGROUND_GUEST_CHAT, PLAYGROUND_FAMILY_CHAT];
const BOT = { id: 100_000, is_bot: true, first_name: "Playground bot", username: "playground_bot" } as const;
const TYPING_MS = 5000;

export interface ShownMessage {
  id: number;
  from: "user" | "bot";
  /** The text as sent (Telegram HTML when `html`), a caption, or a rich message's plain text. */
  text: string;
  /** Bot messages: Telegram HTML when sent with parse_mode HTML. */
  html: boolean;
  buttons: { text: string; data: string }[][];
  reaction?: string;
  edited: boolean;
  at: number;
  /** A rich message (Bot API 10.1+): the `rich_message` the bot sent (markdown, html or blocks), to be drawn. */
  rich?: Record<string, unknown>;
  /** A rich message as a client draws it (see rich-html.ts): tables, headings, task lists, details, math as code. */
  richHtml?: string;
  /** A photo, voice note… (its kind), shown with its caption as `text`. */
  media?: string;
  /** A voice message (sendVoice, or the person's 🎤): where the page plays it. */
  voice?: { url: string };
  /** User messages in the guest chat: who wrote it. Bot messages there: posted as a guest, summoned by this person. */
  by?: string;
  /** A widget (Bot API 10.4): the page draws it in a sandboxed frame (/console/playground/frame/…) with this state. */
  widget?: { chatData: string; width?: number; height?: number };
  /** An ephemeral reply (Bot API 10.4): seen by the person who pressed the button only. */
  ephemeral?: true;
}

/** A private chat's draft (sendMessageDraft, sendRichMessageDraft): shown until the final message replaces it. */
export interface ShownDraft {
  id: number;
  text: string;
  rich?: Record<string, unknown>;
  /** A rich draft as a client draws it, its thinking block included. */
  richHtml?: string;
  /** The draft shows Telegram's stop control (`can_stop`): pressing it sends `stopped_message_generation`. */
  canStop: boolean;
}

/** What the page reads: one chat's state, the list of chats, and a version to long-poll on. */
export interface PlaygroundState {
  version: number;
  chat: number;
  chats: { id: number; name: string; note: string; messages: number }[];
  messages: ShownMessage[];
  draft: ShownDraft | null;
  typing: boolean;
  /** Callback answers and delivery problems, newest last (the page shows each once). */
  notes: { id: number; text: string }[];
  /** Whether this stand-in plays a Bot API server with rich messages (off: one that answers their methods 404). */
  richMessages: boolean;
}

export interface BotApiStandIn {
  url: string;
  /** A chat's messages as the page shows them. */
  messages(chatId: number): ShownMessage[];
  close(): Promise<void>;
}

export interface StandInOptions {
  botToken: string;
  /** The Worker's webhook, and the secret it wants in `X-Telegram-Bot-Api-Secret-Token`. */
  webhookUrl: string;
  webhookSecret: string;
  port?: number;
}

interface ChatExtras {
  /** While the bot is "typing…" (sendChatAction), until this time. */
  typingUntil: number;
  notes: { id: number; text: string }[];
  reactions: Map<number, string>;
  /** Messages with a voice recording (their page URL), and who wrote each guest-chat message. */
  voices: Map<number, string>;
  authors: Map<number, string>;
  /** Ephemeral replies to this chat's person (they are no message of the chat, so Telegram's store keeps none). */
  ephemerals: ShownMessage[];
}

export async function startBotApiStandIn(options: StandInOptions): Promise<BotApiStandIn> {
  const parser = await startTdlib();
  if (!parser.status.available) {
    console.warn(
      `[playground] TDLib's parser is not available (${parser.status.reason}): formatted texts go unchecked`,
    );
  }
  const store = new ChatStore();
  /** Voice messages and voice notes by id: their bytes, played by the page and downloaded by the bot (getFile). */
  const audio = new Map<string, { bytes: Uint8Array; type: string }>();
  /** Open guest queries: which chat each was summoned in, and by whom. */
  const guestQueries = new Map<string, { chatId: number; by: string }>();
  const telegram = new BotApi({
    parser,
    store,
    bot: BOT,
    // The bot is not in the guest chat: it can only answer a guest query there.
    chatOf: (id) => {
      if (id === PLAYGROUND_FAMILY_CHAT.id) return { id, type: "group", title: PLAYGROUND_FAMILY_CHAT.firstName };
      const known = PLAYGROUND_CHATS.find((chat) => chat.id === id);
      return known ? { id, type: "private", first_name: known.firstName } : undefined;
    },
    guestQuery: (queryId) => {
      const query = guestQueries.get(queryId);
      if (!query) return undefined;
      return {
        answered: (text, parseMode) => {
          guestQueries.delete(queryId);
          const id = store.newMessageId();
          store.add({
            chatId: query.chatId,
            messageId: id,
            from: "bot",
            content: { kind: "text", text, entities: [] },
            keyboard: [],
            sent: { text, ...(parseMode ? { parseMode } : {}) },
            date: seconds(),
          });
          extras.get(query.chatId)!.authors.set(id, query.by);
          changed();
        },
      };
    },
  });
  const extras = new Map<number, ChatExtras>(
    ALL_CHATS.map((chat) => [
      chat.id,
      { typingUntil: 0, notes: [], reactions: new Map(), voices: new Map(), authors: new Map(), ephemerals: [] },
    ]),
  );
  /** Which chat a button press came from, so its callback answer shows there. */
  const pressedIn = new Map<string, number>();
  /** Widget queries the page waits on (its widget's tap), by query id: the bot's answerWidgetQuery settles each. */
  const widgetWaits = new Map<string, (answer: string | undefined) => void>();
  let nextWidgetQuery = 1;
  const waiters = new Set<() => void>();
  let version = 0;
  // Not 1: the chat objects keep the update ids they saw (a redelivery is a no-op), and survive a restart of `npm run dev`.
  let nextUpdateId = Date.now();
  let nextNoteId = 1;
  let violationsSeen = 0;

  const changed = () => {
    version += 1;
    for (const wake of [...waiters]) wake();
  };
  const note = (chatId: number, text: string) => {
    const chat = extras.get(chatId)!;
    chat.notes = [...chat.notes.slice(-19), { id: nextNoteId++, text }];
    changed();
  };

  const shown = (message: StoredMessage): ShownMessage => {
    const content = message.content;
    return {
      id: message.messageId,
      from: message.from,
      text:
        content.kind === "rich"
          ? content.rich.text
          : content.kind === "media" || content.kind === "widget"
            ? (message.sent.text ?? content.caption)
            : (message.sent.text ?? content.text),
      html: message.from === "bot" && message.sent.parseMode?.toLowerCase() === "html",
      buttons: message.keyboard.map((row) =>
        row.map((button) => ({ text: button.text, data: String(button.callback_data ?? button.url ?? "") })),
      ),
      ...(extras.get(message.chatId)?.reactions.has(message.messageId)
        ? { reaction: extras.get(message.chatId)!.reactions.get(message.messageId) }
        : {}),
      edited: message.editDate !== undefined,
      at: message.date * 1000,
      ...(content.kind === "rich" ? { rich: content.rich.input, richHtml: richHtml(content.rich.input) } : {}),
      ...(content.kind === "media" ? { media: content.media } : {}),
      // A widget (Bot API 10.4): the page runs it in a sandboxed frame with its current state.
      ...(content.kind === "widget"
        ? {
            widget: {
              chatData: content.widget.chatData,
              ...(content.widget.width !== undefined ? { width: content.widget.width } : {}),
              ...(content.widget.height !== undefined ? { height: content.widget.height } : {}),
            },
          }
        : {}),
      ...(extras.get(message.chatId)?.voices.has(message.messageId)
        ? { voice: { url: extras.get(message.chatId)!.voices.get(message.messageId)! } }
        : {}),
      ...(extras.get(message.chatId)?.authors.has(message.messageId)
        ? { by: extras.get(message.chatId)!.authors.get(message.messageId)! }
        : {}),
    };
  };
  const messagesOf = (chatId: number) =>
    [...store.messages(chatId).map(shown), ...(extras.get(chatId)?.ephemerals ?? [])].sort(
      (a, b) => a.at - b.at || a.id - b.id,
    );
  const draftOf = (chatId: number): ShownDraft | null => {
    const draft = store.draft(chatId);
    if (!draft) return null;
    return draft.kind === "rich"
      ? {
          id: draft.draftId,
          text: draft.rich.text,
          rich: draft.rich.input,
          richHtml: richHtml(draft.rich.input),
          canStop: draft.canStop,
        }
      : { id: draft.draftId, text: draft.text, canStop: draft.canStop };
  };

  const deliver = async (chatId: number, update: Record<string, unknown>) => {
    try {
      const response = await fetch(options.webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": options.webhookSecret },
        body: JSON.stringify({ update_id: nextUpdateId++, ...update }),
      });
      if (!response.ok)
        note(chatId, `The webhook answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    } catch (error) {
      note(chatId, `The webhook could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const chatOf = (id: number) => {
    if (id === PLAYGROUND_GUEST_CHAT.id) return { id, type: "group", title: PLAYGROUND_GUEST_CHAT.firstName };
    if (id === PLAYGROUND_FAMILY_CHAT.id) return { id, type: "group", title: PLAYGROUND_FAMILY_CHAT.firstName };
    const known = PLAYGROUND_CHATS.find((chat) => chat.id === id)!;
    return { id, type: "private", first_name: known.firstName };
  };
  const personOf = (id: number) => ({
    id,
    is_bot: false,
    first_name: PLAYGROUND_CHATS.find((chat) => chat.id === id)?.firstName ?? "Someone",
  });

  /** One Bot API call: answered by the shared core, then reflected in what the page shows. */
  const botMethod = async (method: string, params: Record<string, unknown>, upload?: Uint8Array) => {
    // A voice note the person sent is a file the bot downloads (getFile, then /file/bot<token>/<path>).
    if (method === "getFile" && audio.has(String(params.file_id ?? ""))) {
      const fileId = String(params.file_id);
      telegram.inspect(method, params);
      const size = audio.get(fileId)!.bytes.length;
      const file = {
        file_id: fileId,
        file_unique_id: `${fileId}-u`,
        file_size: size,
        file_path: `voice/${fileId}.ogg`,
      };
      return { ok: true as const, result: file };
    }
    const outcome = await telegram.call(method, params);
    for (; violationsSeen < telegram.violations.length; violationsSeen++) {
      console.warn(
        `[playground] Telegram would not know this: ${describeViolation(telegram.violations[violationsSeen]!)}`,
      );
    }
    if (!outcome.ok) return outcome;
    const ephemeral = params.ephemeral_message_parameters as { callback_query_id?: unknown } | undefined;
    if (ephemeral && typeof ephemeral === "object") {
      // Shown to the presser only: in the chat the press came from, marked as such.
      const pressed = pressedIn.get(String(ephemeral.callback_query_id)) ?? Number(params.chat_id);
      const sent = outcome.result as { message_id: number };
      extras.get(pressed)?.ephemerals.push({
        id: sent.message_id,
        from: "bot",
        text: String(params.text ?? params.caption ?? ""),
        html: String(params.parse_mode ?? "").toLowerCase() === "html",
        buttons: [],
        edited: false,
        at: Date.now(),
        ephemeral: true,
      });
      changed();
      return outcome;
    }
    const chatId = Number(params.chat_id);
    const chat = extras.get(chatId);
    switch (method) {
      case "answerWidgetQuery": {
        const id = String(params.widget_query_id);
        widgetWaits.get(id)?.(params.data === undefined ? "" : String(params.data));
        widgetWaits.delete(id);
        break;
      }
      case "answerCallbackQuery": {
        const pressed = pressedIn.get(String(params.callback_query_id)) ?? PLAYGROUND_CHAT.id;
        if (typeof params.text === "string" && params.text !== "") note(pressed, params.text);
        break;
      }
      case "sendChatAction":
        if (chat) chat.typingUntil = Date.now() + TYPING_MS;
        changed();
        break;
      case "setMessageReaction": {
        const reactions = Array.isArray(params.reaction) ? (params.reaction as { emoji?: string }[]) : [];
        const emoji = reactions[0]?.emoji;
        if (chat && emoji) chat.reactions.set(Number(params.message_id), emoji);
        else chat?.reactions.delete(Number(params.message_id));
        changed();
        break;
      }
      case "sendVoice": {
        const id = (outcome.result as { message_id?: number }).message_id;
        if (chat && id !== undefined && upload) {
          audio.set(`sent-${id}`, { bytes: upload, type: "audio/ogg" });
          chat.voices.set(id, `voice/sent-${id}`);
        }
        if (chat) chat.typingUntil = 0;
        changed();
        break;
      }
      default:
        // A message sent by the bot ends "typing…" (as a Telegram client shows it).
        if (chat && method.startsWith("send") && method !== "sendMessageDraft" && method !== "sendRichMessageDraft") {
          chat.typingUntil = 0;
        }
        changed();
    }
    return outcome;
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
    const input = path === "state" || path === "frame" ? Object.fromEntries(url.searchParams) : parse(raw);
    const chatId = Number(input.chat ?? PLAYGROUND_CHAT.id);
    const chatExtras = extras.get(chatId);
    if (!chatExtras) return send(response, 404, { error: "no such playground chat" });
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
      const state: PlaygroundState = {
        version,
        chat: chatId,
        chats: ALL_CHATS.map((chat) => ({
          id: chat.id,
          name: chat.firstName,
          note: chat.note,
          messages: store.messages(chat.id).length,
        })),
        messages: messagesOf(chatId),
        draft: draftOf(chatId),
        typing: chatExtras.typingUntil > Date.now(),
        notes: chatExtras.notes,
        richMessages: telegram.richMessages,
      };
      return send(response, 200, state);
    }
    if (path === "frame") {
      // A widget's document and its current state, for the page's sandboxed frame.
      const message = store.get(chatId, Number(input.id));
      if (message?.content.kind !== "widget") return send(response, 404, { error: "no such widget" });
      return send(response, 200, { html: message.content.widget.html, chatData: message.content.widget.chatData });
    }
    const chat = chatOf(chatId);
    // In a group you write as yourself or as your friend; in a private chat, as its person.
    const person = personOf(chatId < 0 ? Number(input.as ?? PLAYGROUND_CHAT.id) : chatId);
    if (path === "send") {
      const text = typeof input.text === "string" ? input.text.trim().slice(0, 4096) : "";
      if (text === "") return send(response, 400, { error: "empty message" });
      const id = store.newMessageId();
      const spoken = input.voice === true && chatId !== PLAYGROUND_GUEST_CHAT.id;
      telegram.receive({ chatId, messageId: id, text: spoken ? `🎤 ${text}` : text });
      if (spoken) {
        // A voice note: a silent recording that carries what you typed, which only the stand-in model "hears".
        audio.set(`note-${id}`, {
          bytes: silentOggOpus({ seconds: 2, comments: { TRANSCRIPT: text } }),
          type: "audio/ogg",
        });
        chatExtras.voices.set(id, `voice/note-${id}`);
      }
      if (chatId < 0) chatExtras.authors.set(id, person.first_name);
      changed();
      if (chatId === PLAYGROUND_GUEST_CHAT.id) {
        if (!new RegExp(`@${BOT.username}\\b`, "i").test(text)) return send(response, 200, { ok: true, id });
        const queryId = `playground-guest-${id}`;
        guestQueries.set(queryId, { chatId, by: person.first_name });
        await deliver(chatId, {
          guest_message: { message_id: id, date: seconds(), chat, from: person, text, guest_query_id: queryId },
        });
        return send(response, 200, { ok: true, id });
      }
      if (spoken) {
        const size = audio.get(`note-${id}`)!.bytes.length;
        const voice = { file_id: `note-${id}`, file_unique_id: `note-${id}-u`, duration: 2, mime_type: "audio/ogg" };
        await deliver(chatId, {
          message: { message_id: id, date: seconds(), chat, from: person, voice: { ...voice, file_size: size } },
        });
        return send(response, 200, { ok: true, id });
      }
      const command = /^\/\w+(@\w+)?/.exec(text);
      await deliver(chatId, {
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
      const message = store.get(chatId, Number(input.messageId));
      if (!message || typeof input.data !== "string") return send(response, 400, { error: "no such button" });
      const queryId = `playground-${nextUpdateId}`;
      pressedIn.set(queryId, chatId);
      telegram.openQuery({ kind: "callback", id: queryId, openedAt: Date.now(), chatId, fromId: person.id });
      // Bot API 10.5: a bot whose callback_query_mode is "inline" hears of presses on its own messages by
      // inline_message_id, without the message.
      const where =
        telegram.settings.callbackQueryMode === "inline"
          ? { inline_message_id: `playground-${chatId}-${message.messageId}` }
          : { message: telegram.messageObject(message) };
      await deliver(chatId, {
        callback_query: {
          id: queryId,
          from: person,
          chat_instance: `playground-${chatId}`,
          data: input.data,
          ...where,
        },
      });
      return send(response, 200, { ok: true });
    }
    if (path === "widget") {
      // A tap in a widget: a widget_query update (Bot API 10.4), and the bot's answer (answerWidgetQuery) back to
      // the widget, within Telegram's 15 seconds (after that the widget gets nothing).
      const message = store.get(chatId, Number(input.messageId));
      const data = typeof input.data === "string" ? input.data : "";
      if (message?.content.kind !== "widget") return send(response, 400, { error: "no such widget" });
      if (data === "" || Buffer.byteLength(data) > 64)
        return send(response, 400, { error: "a query's data is 1-64 bytes" });
      const queryId = `playground-widget-${nextWidgetQuery++}`;
      telegram.openQuery({ kind: "widget", id: queryId, openedAt: Date.now(), chatId, fromId: person.id });
      const answer = new Promise<string | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 15_000);
        widgetWaits.set(queryId, (value) => {
          clearTimeout(timer);
          resolve(value);
        });
      });
      await deliver(chatId, {
        widget_query: {
          id: queryId,
          from: person,
          chat_instance: `playground-${chatId}`,
          type: { type: "data" },
          data,
          chat,
          message_id: message.messageId,
        },
      });
      const answered = await answer;
      widgetWaits.delete(queryId);
      return send(
        response,
        200,
        answered === undefined ? { ok: false, error: "no answer within 15 s" } : { ok: true, answer: answered },
      );
    }
    if (path === "stop") {
      // The draft's stop control: the draft goes (as Telegram hides it) and the bot hears of it.
      const draft = store.draft(chatId);
      if (!draft?.canStop || draft.draftId !== Number(input.draftId)) {
        return send(response, 400, { error: "no draft to stop" });
      }
      store.endDraft(chatId);
      changed();
      await deliver(chatId, { stopped_message_generation: { chat, draft_id: draft.draftId } });
      return send(response, 200, { ok: true });
    }
    if (path === "telegram") {
      // Play a Bot API server without rich messages (an older or self-hosted one), or one with them again.
      if (typeof input.richMessages !== "boolean") return send(response, 400, { error: "richMessages: true or false" });
      telegram.richMessages = input.richMessages;
      changed();
      return send(response, 200, { ok: true, richMessages: telegram.richMessages });
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
      const params = await readParams(call[2]!, raw, contentType, url.searchParams);
      // An upload's bytes (sendVoice), kept so that the page can play what the bot said.
      const voice = contentType.startsWith("multipart/form-data")
        ? multipartFields(contentType, bytes).voice
        : undefined;
      const outcome = await botMethod(call[2]!, params, typeof voice === "object" ? voice.bytes : undefined);
      if (!outcome.ok) {
        const { status, description, parameters } = outcome.refusal;
        return send(response, status, {
          ok: false,
          error_code: status,
          description,
          ...(parameters ? { parameters } : {}),
        });
      }
      return send(response, 200, { ok: true, result: outcome.result });
    } catch (error) {
      send(response, 500, { ok: false, error_code: 500, description: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    messages: messagesOf,
    close: async () => {
      for (const wake of [...waiters]) wake();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await parser.close();
    },
  };
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
