/**
 * A local stand-in for Telegram's Bot API, for `npm run dev` without a bot token: the Worker's Bot API calls
 * (TELEGRAM_API_BASE_URL points here) are answered by the same Telegram-faithful core the tests' fake uses
 * (scripts/bot-api/: methods and fields checked, texts parsed by TDLib's parser, rich messages checked, messages
 * kept per chat), and the console's playground page reads each chat's state and posts what a person types, which
 * this server turns into a Telegram update for the real webhook. Plain, erasable TypeScript: Node runs it with type
 * stripping.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BotApi } from "../bot-api/bot-api.ts";
import { ChatStore, type StoredMessage } from "../bot-api/chat-store.ts";
import { readParams } from "../bot-api/params.ts";
import { startTdlib } from "../bot-api/tdlib.ts";
import { describeViolation } from "../bot-api/vocabulary.ts";
import { readBody } from "../read-body.ts";
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
}

export async function startBotApiStandIn(options: StandInOptions): Promise<BotApiStandIn> {
  const parser = await startTdlib();
  if (!parser.status.available) {
    console.warn(
      `[playground] TDLib's parser is not available (${parser.status.reason}): formatted texts go unchecked`,
    );
  }
  const store = new ChatStore();
  const telegram = new BotApi({
    parser,
    store,
    bot: BOT,
    chatOf: (id) => {
      const known = PLAYGROUND_CHATS.find((chat) => chat.id === id);
      return known ? { id, type: "private", first_name: known.firstName } : undefined;
    },
  });
  const extras = new Map<number, ChatExtras>(
    PLAYGROUND_CHATS.map((chat) => [chat.id, { typingUntil: 0, notes: [], reactions: new Map() }]),
  );
  /** Which chat a button press came from, so its callback answer shows there. */
  const pressedIn = new Map<string, number>();
  const waiters = new Set<() => void>();
  let version = 0;
  let nextUpdateId = 1;
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
          : content.kind === "media"
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
    };
  };
  const messagesOf = (chatId: number) => store.messages(chatId).map(shown);
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
    const known = PLAYGROUND_CHATS.find((chat) => chat.id === id)!;
    return { id, type: "private", first_name: known.firstName };
  };
  const personOf = (id: number) => ({ id, is_bot: false, first_name: chatOf(id).first_name });

  /** One Bot API call: answered by the shared core, then reflected in what the page shows. */
  const botMethod = async (method: string, params: Record<string, unknown>) => {
    const outcome = await telegram.call(method, params);
    for (; violationsSeen < telegram.violations.length; violationsSeen++) {
      console.warn(
        `[playground] Telegram would not know this: ${describeViolation(telegram.violations[violationsSeen]!)}`,
      );
    }
    if (!outcome.ok) return outcome;
    const chatId = Number(params.chat_id);
    const chat = extras.get(chatId);
    switch (method) {
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
    const input = path === "state" ? Object.fromEntries(url.searchParams) : parse(raw);
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
        chats: PLAYGROUND_CHATS.map((chat) => ({
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
    const chat = chatOf(chatId);
    const person = personOf(chatId);
    if (path === "send") {
      const text = typeof input.text === "string" ? input.text.trim().slice(0, 4096) : "";
      if (text === "") return send(response, 400, { error: "empty message" });
      const id = store.newMessageId();
      telegram.receive({ chatId, messageId: id, text });
      changed();
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
      await deliver(chatId, {
        callback_query: {
          id: queryId,
          from: person,
          chat_instance: "playground",
          data: input.data,
          message: telegram.messageObject(message),
        },
      });
      return send(response, 200, { ok: true });
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
      const raw = await readBody(request);
      const playgroundPath = /^\/playground\/(\w+)$/.exec(url.pathname)?.[1];
      if (playgroundPath) return await playground(playgroundPath, url, raw, response);
      const call = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (!call) return send(response, 404, { ok: false, error_code: 404, description: "Not Found" });
      if (call[1] !== options.botToken) {
        return send(response, 401, { ok: false, error_code: 401, description: "Unauthorized" });
      }
      const params = await readParams(call[2]!, raw, request.headers["content-type"], url.searchParams);
      const outcome = await botMethod(call[2]!, params);
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
