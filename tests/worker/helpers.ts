import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import type { ChatSession } from "../../src/durable/chat-session.ts";
import { anthropicMessage, type FakeToolCall, openaiCompletion } from "../fakes/bodies.ts";
import type {
  FakeFile,
  RecordedRequest,
  ScriptedResponse,
  Service,
  TelegramReport,
  TelegramSwitches,
} from "../fakes/server.ts";

export const WEBHOOK_SECRET = "test-webhook-secret";
export const ADMIN_TOKEN = "test-admin-token-0123456789abcdefghij";
export const BOT = { id: 123456, username: "testbot" };
export const PRIVATE_CHAT = 1001;
export const OTHER_PRIVATE_CHAT = 1002;
export const GROUP_CHAT = -2001;
export const FORUM_CHAT = -3001;
export const STRANGER_CHAT = 5005;

/** Talks to the fake upstreams' control API. */
export const fakes = {
  async script(service: Service, ...responses: ScriptedResponse[]): Promise<void> {
    await fetch(`${env.FAKES_URL}/__control/script`, { method: "POST", body: JSON.stringify({ service, responses }) });
  },
  /** A file the fake Telegram serves by its id. */
  async file(file: FakeFile): Promise<void> {
    await fetch(`${env.FAKES_URL}/__control/file`, { method: "POST", body: JSON.stringify(file) });
  },
  async requests(service: Service, filter: { method?: string; chatId?: number } = {}): Promise<RecordedRequest[]> {
    const response = await fetch(`${env.FAKES_URL}/__control/requests?${query(service, filter)}`);
    return response.json();
  },
  /** Waits (long-poll, no sleeping) until the fake has received `count` matching requests. */
  async wait(
    service: Service,
    filter: { method?: string; chatId?: number; count?: number; timeoutMs?: number } = {},
  ): Promise<RecordedRequest[]> {
    const parameters = new URLSearchParams(query(service, filter));
    parameters.set("count", String(filter.count ?? 1));
    parameters.set("timeout", String(filter.timeoutMs ?? 20_000));
    const response = await fetch(`${env.FAKES_URL}/__control/wait?${parameters}`);
    const found = (await response.json()) as RecordedRequest[];
    if (response.status !== 200) {
      throw new Error(
        `timed out waiting for ${filter.count ?? 1} ${service} ${filter.method ?? ""} request(s); got ${found.length}`,
      );
    }
    return found;
  },
  /** Switches the fake Telegram's behaviour for this test (see TelegramSwitches), and reads its report. */
  async telegram(switches?: TelegramSwitches): Promise<TelegramReport> {
    const response = await fetch(`${env.FAKES_URL}/__control/telegram`, {
      method: switches ? "POST" : "GET",
      ...(switches ? { body: JSON.stringify(switches) } : {}),
    });
    return response.json();
  },
  /** The messages the fake Telegram holds for a chat (its text as Telegram parsed it), and the chat's draft. */
  async chatMessages(chatId: number): Promise<{ messages: StoredChatMessage[]; draft: unknown }> {
    return (await fetch(`${env.FAKES_URL}/__control/telegram/messages?chatId=${chatId}`)).json();
  },
};

/** A message as the fake Telegram keeps it: the Bot API `Message`, and its content as parsed. */
export interface StoredChatMessage {
  message_id: number;
  text?: string;
  caption?: string;
  content: { kind: "text" | "rich" | "media"; text?: string; caption?: string; rich?: { text: string } };
  sent: { text?: string; parseMode?: string; richMessage?: unknown };
}

function query(service: Service, filter: { method?: string; chatId?: number }): string {
  const parameters = new URLSearchParams({ service });
  if (filter.method) parameters.set("method", filter.method);
  if (filter.chatId !== undefined) parameters.set("chatId", String(filter.chatId));
  return parameters.toString();
}

let nextUpdateId = 1;
let nextMessageId = 1;

export interface MessageOptions {
  chatId?: number;
  chatType?: "private" | "group" | "supergroup" | "channel";
  title?: string;
  fromId?: number;
  firstName?: string;
  updateId?: number;
  threadId?: number;
  isForum?: boolean;
  replyTo?: { fromId: number; isBot?: boolean; text: string; firstName?: string };
  caption?: boolean;
  entities?: unknown[];
}

/** A Telegram update with a text message, as Telegram would POST it. */
export function textUpdate(text: string, options: MessageOptions = {}): Record<string, unknown> {
  const chatId = options.chatId ?? PRIVATE_CHAT;
  const chatType = options.chatType ?? (chatId > 0 ? "private" : "group");
  const fromId = options.fromId ?? (chatId > 0 ? chatId : PRIVATE_CHAT);
  const message: Record<string, unknown> = {
    message_id: nextMessageId++,
    date: Math.floor(Date.now() / 1000),
    chat: {
      id: chatId,
      type: chatType,
      ...(chatType === "private" ? { first_name: "Ada" } : { title: options.title ?? "Test group" }),
      ...(options.isForum ? { is_forum: true } : {}),
    },
    from: { id: fromId, is_bot: false, first_name: options.firstName ?? "Ada" },
    ...(options.caption
      ? { caption: text, photo: [{ file_id: "x", file_unique_id: "y", width: 1, height: 1 }] }
      : { text }),
    ...(options.entities ? { entities: options.entities } : {}),
    ...(options.threadId !== undefined ? { message_thread_id: options.threadId, is_topic_message: true } : {}),
    ...(options.replyTo
      ? {
          reply_to_message: {
            message_id: 1,
            date: 1,
            chat: { id: chatId, type: chatType },
            from: {
              id: options.replyTo.fromId,
              is_bot: options.replyTo.isBot ?? false,
              first_name: options.replyTo.firstName ?? "Bob",
            },
            text: options.replyTo.text,
          },
        }
      : {}),
  };
  return { update_id: options.updateId ?? nextUpdateId++, message };
}

export async function postUpdate(update: unknown, secret: string | null = WEBHOOK_SECRET): Promise<Response> {
  return exports.default.fetch("http://bot.test/telegram/webhook", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(secret === null ? {} : { "x-telegram-bot-api-secret-token": secret }),
    },
    body: typeof update === "string" ? update : JSON.stringify(update),
  });
}

/**
 * Sends a message through the webhook and waits for the bot's answer: the `count`-th sendMessage to that chat
 * since the test began (default 1). Returns that message.
 */
export async function say(text: string, options: MessageOptions & { count?: number } = {}): Promise<RecordedRequest> {
  const response = await postUpdate(textUpdate(text, options));
  if (response.status !== 200) throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
  const sent = await fakes.wait("telegram", {
    method: "sendMessage",
    chatId: options.chatId ?? PRIVATE_CHAT,
    count: options.count ?? 1,
  });
  return sent[(options.count ?? 1) - 1]!;
}

/** Waits (polling, no fixed sleep) until `check` holds; `what` names it in the failure. */
export const eventually = (check: () => Promise<boolean>, what = "the condition") =>
  expect.poll(check, { timeout: 30_000, interval: 100, message: `waiting for ${what}` }).toBe(true);

/**
 * The mean gap between requests as the fake received them. A loaded machine delays single requests in transit by
 * hundreds of ms, so one gap can look shorter than the pace it was sent at; over a run, that shifts the mean by at
 * most one delay divided by the number of gaps. (The pacing itself is checked to the ms in paced-writer.test.ts.)
 */
export function meanGapMs(requests: readonly { at: number }[]): number {
  if (requests.length < 2) throw new Error(`a mean gap needs two requests, not ${requests.length}`);
  return (requests.at(-1)!.at - requests[0]!.at) / (requests.length - 1);
}

export function sentText(request: RecordedRequest | undefined): string {
  return String((request?.body as { text?: unknown } | undefined)?.text ?? "");
}

export function openaiToolCalls(calls: FakeToolCall[], content: string | null = null): ScriptedResponse {
  return { body: openaiCompletion(content, { toolCalls: calls, usage: { prompt_tokens: 20, completion_tokens: 10 } }) };
}

export function openaiText(text: string, usage = { prompt_tokens: 10, completion_tokens: 5 }): ScriptedResponse {
  return { body: openaiCompletion(text, { usage }) };
}

export function anthropicToolUse(uses: { name: string; input: unknown; id?: string }[], text = ""): ScriptedResponse {
  return { body: anthropicMessage(text, uses) };
}

export function anthropicText(text: string): ScriptedResponse {
  return { body: anthropicMessage(text) };
}

/** The chat's Durable Object stub, by the same key the webhook uses. */
export function session(chatId: number, threadId?: number) {
  const key = threadId === undefined ? `chat:${chatId}` : `chat:${chatId}:topic:${threadId}`;
  return env.CHAT_SESSION.get(env.CHAT_SESSION.idFromName(key));
}

let nextClient = 1;

/**
 * A call of the admin API. Each comes from its own client address (wrong tokens are limited per client, and tests
 * that send some must not lock the others out), unless the caller sets `cf-connecting-ip` itself.
 */
export async function admin(path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { token = ADMIN_TOKEN, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (!headers.has("cf-connecting-ip"))
    headers.set("cf-connecting-ip", `198.18.${nextClient >> 8}.${nextClient++ & 255}`);
  if (token !== null) headers.set("authorization", `Bearer ${token}`);
  if (rest.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  return exports.default.fetch(`http://bot.test/admin${path}`, { ...rest, headers });
}

/** A chat's stored history, oldest first, each row's message as JSON.parse reads it. */
export const storedHistory = (chatId: number) =>
  runInDurableObject(session(chatId), (_i, state) =>
    state.storage.sql
      .exec<{ message: string }>("SELECT message FROM history ORDER BY id")
      .toArray()
      .map((row) => JSON.parse(row.message) as { role: string; content: string }),
  );

/** Makes a chat's buffered usage records old enough to be written and runs its alarm, which writes them to D1. */
export async function flushUsageNow(chatId: number): Promise<void> {
  // What the chat owes D1 (usage records, its directory row). The flush as an hour from now would make it (the buffer keeps its oldest time in memory, so rows are not
  // back-dated behind its back), then the alarm, which plans the next wake without the records.
  await runInDurableObject(session(chatId), (instance: ChatSession) =>
    instance.d1Writes.flushIfDue(Date.now() + 3_600_000),
  );
  await runDurableObjectAlarm(session(chatId));
}

let nextCallbackId = 1;

/** A press of an inline button on message `messageId`, as Telegram would POST it. */
export function buttonPress(
  data: string,
  options: { chatId?: number; fromId?: number; messageId: number; chatType?: "private" | "group" | "supergroup" },
): Record<string, unknown> {
  const chatId = options.chatId ?? PRIVATE_CHAT;
  return {
    update_id: nextUpdateId++,
    callback_query: {
      id: `cb${nextCallbackId++}`,
      from: { id: options.fromId ?? chatId, is_bot: false, first_name: "Presser" },
      chat_instance: "1",
      data,
      message: {
        message_id: options.messageId,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: options.chatType ?? (chatId > 0 ? "private" : "group") },
      },
    },
  };
}

/** Waits until the chat's object has finished its running drain (its turn's writes are committed). */
export async function settled(chatId: number, threadId?: number): Promise<void> {
  await runInDurableObject(session(chatId, threadId), async (instance) => {
    await instance.schedule.drain?.catch(() => undefined);
  });
}

/** A photo as Telegram lists it: a small and a large size of one picture (ids derived from `id`). */
export function photoSizes(id: string, options: { fileSize?: number } = {}): Record<string, unknown>[] {
  return [
    { file_id: `${id}-small`, file_unique_id: `${id}-small-u`, width: 90, height: 60, file_size: 1000 },
    {
      file_id: `${id}-large`,
      file_unique_id: `${id}-large-u`,
      width: 1280,
      height: 853,
      ...(options.fileSize !== undefined ? { file_size: options.fileSize } : {}),
    },
  ];
}

/** An update whose message carries `fields` (photo, voice, document, media_group_id…) and an optional caption. */
export function mediaUpdate(
  fields: Record<string, unknown>,
  options: { caption?: string; chatId?: number } = {},
): Record<string, unknown> {
  const update = textUpdate("", options.chatId === undefined ? {} : { chatId: options.chatId });
  const { text: _text, ...message } = update.message as Record<string, unknown>;
  return {
    ...update,
    message: { ...message, ...fields, ...(options.caption !== undefined ? { caption: options.caption } : {}) },
  };
}

/** Posts an update and fails the test unless the webhook takes it. */
export async function post(update: unknown): Promise<void> {
  const response = await postUpdate(update);
  if (response.status !== 200) throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
}

/** A press of a rich draft's stop control (Bot API 10.3), as Telegram would POST it: the private chat and the draft. */
export function generationStopped(draftId: number, options: { chatId?: number } = {}): Record<string, unknown> {
  const chatId = options.chatId ?? PRIVATE_CHAT;
  return {
    update_id: nextUpdateId++,
    stopped_message_generation: { chat: { id: chatId, type: "private", first_name: "Ada" }, draft_id: draftId },
  };
}

/** Turns rich messages on for a chat (the tests' default is the HTML path: RICH_MESSAGES is "off" there). */
export async function withRichMessages(chatId: number, config: Record<string, unknown> = {}): Promise<void> {
  const response = await admin(`/chats/${chatId}/config`, {
    method: "PUT",
    body: JSON.stringify({ richMessages: "auto", ...config }),
  });
  if (response.status !== 200) throw new Error(`config refused: ${await response.text()}`);
}
