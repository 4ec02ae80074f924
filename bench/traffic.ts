import { openaiCompletion } from "../tests/fakes/bodies.ts";
import type { Fakes, RecordedRequest } from "../tests/fakes/server.ts";
import type { Bot } from "./bot.ts";

/**
 * Driving the bot as Telegram would, and watching what comes back: update JSON, the webhook call, senders that keep
 * each chat's order, and a watcher of the fake Telegram's answers. Shared by the scenarios.
 */

/** Watches what the fake Telegram receives: each chat's answers and its Bot API calls. */
export class Watcher {
  readonly answers = new Map<number, { at: number; text: string }[]>();
  readonly calls = new Map<number, number>();
  /** Each chat's Bot API calls by method. */
  readonly methods = new Map<number, Map<string, number>>();
  /** When each chat's drafts (streamed text) reached Telegram. */
  readonly drafts = new Map<number, number[]>();
  /** When the fake OpenAI API last received a model call (its first token goes out at once). */
  lastModelCallAt = 0;
  /** Model calls that carry a tool's result: when each arrived, and its body (what the tool answered is in it). */
  readonly toolResultCalls: { at: number; body: unknown }[] = [];
  /** Chats whose markers are counted in every message sent, not only an answer's first part (long echoes split). */
  readonly everyPart = new Map<number, Set<string>>();
  /**
   * Whether an edit's text is an answer: the other bot of `--peer` (bench/peer.ts) sends "..." at once and edits the
   * answer into it; this bot's edits are drafts and corrections, never the first showing of an answer.
   */
  editsAnswer = false;
  /** Told of every model call, while a scenario listens. */
  onModelCall: ((at: number, body: unknown) => void) | undefined;
  private waiters: { test: () => boolean; resolve: () => void }[] = [];

  constructor(fakes: Fakes) {
    fakes.onRequest = (request: RecordedRequest) => {
      if (request.service === "openai") {
        this.lastModelCallAt = request.at;
        const messages = (request.body as { messages?: { role: string }[] } | undefined)?.messages ?? [];
        if (messages.at(-1)?.role === "tool") this.toolResultCalls.push({ at: request.at, body: request.body });
        this.onModelCall?.(request.at, request.body);
      }
      if (request.service !== "telegram") return;
      const body = request.body as
        | { chat_id?: number; text?: string; rich_message?: { markdown?: string } }
        | undefined;
      const chatId = Number(body?.chat_id);
      if (!Number.isFinite(chatId)) return;
      this.calls.set(chatId, (this.calls.get(chatId) ?? 0) + 1);
      const methods = this.methods.get(chatId) ?? new Map<string, number>();
      methods.set(request.method, (methods.get(request.method) ?? 0) + 1);
      this.methods.set(chatId, methods);
      if (request.method === "sendMessageDraft" || request.method === "sendRichMessageDraft")
        this.drafts.set(chatId, [...(this.drafts.get(chatId) ?? []), request.at]);
      // An answer is a message (Telegram HTML) or a rich message (its Markdown) that says which message it answers.
      const text =
        request.method === "sendMessage" || (this.editsAnswer && request.method === "editMessageText")
          ? body?.text
          : request.method === "sendRichMessage"
            ? body?.rich_message?.markdown
            : undefined;
      const counted = text === undefined ? undefined : this.everyPart.get(chatId);
      for (const marker of counted ? (text?.match(/m-?\d+-\d+/g) ?? []) : []) counted?.add(marker);
      const isAnswer = text !== undefined && (text.startsWith("echo:") || text.startsWith("done "));
      if (isAnswer) {
        const list = this.answers.get(chatId) ?? [];
        list.push({ at: request.at, text });
        this.answers.set(chatId, list);
      }
      if (isAnswer || counted) {
        this.waiters = this.waiters.filter((waiter) => {
          if (!waiter.test()) return true;
          waiter.resolve();
          return false;
        });
      }
    };
  }

  /** Waits until `test` holds (checked on every answer), or fails after `timeoutMs`. */
  until(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** The markers each answer of a chat carries, in arrival order. */
  markers(chatId: number): string[] {
    return (this.answers.get(chatId) ?? []).flatMap((answer) => answer.text.match(/m-?\d+-\d+/g) ?? []);
  }

  answeredAt(chatId: number, marker: string): number | undefined {
    return this.answers.get(chatId)?.find((answer) => new RegExp(`${marker}(?!\\d)`).test(answer.text))?.at;
  }
}

let nextUpdateId = 1;
let nextChatId = 100_000;
/** Round-trip markers count from here, clear of the markers a chat's seeding or bulk sending used. */
let roundTripSequence = 1_000_000;

/** A private chat's message update from its person, with `content` (text, a photo…) made for the update's id. */
function messageUpdate(chatId: number, content: (id: number) => Record<string, unknown>): string {
  const id = nextUpdateId++;
  return JSON.stringify({
    update_id: id,
    message: {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: "private", first_name: "Bench" },
      from: { id: chatId, is_bot: false, first_name: "Bench", language_code: "en" },
      ...content(id),
    },
  });
}

export function update(chatId: number, text: string): string {
  return messageUpdate(chatId, () => ({ text }));
}

/** A group's message update from one of its members (`chatId` negative), as Telegram sends it to the bot. */
export function groupUpdate(chatId: number, fromId: number, text: string): string {
  const id = nextUpdateId++;
  return JSON.stringify({
    update_id: id,
    message: {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: "group", title: "Bench group" },
      from: { id: fromId, is_bot: false, first_name: "Bench", language_code: "en" },
      text,
    },
  });
}

export async function post(bot: Bot, body: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${bot.url}${bot.webhookPath ?? "/telegram/webhook"}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": bot.secret },
    body,
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`webhook answered ${response.status}`);
  return performance.now() - started;
}

/**
 * GET /health (no storage, no object) sent every `everyMs` until stopped, each at its time whether or not the ones
 * before it were answered: the runtime's floor under a load. Sent one after another instead (until 2026-11-25), a probe
 * caught in a stall of the runtime's thread held back the probes behind it, so a 170 ms stall counted once among
 * the floor's samples but ten times or more among the paced acks' (coordinated omission), and the ratio of the p99s
 * measured how many samples each took during stalls more than the bot.
 */
export function probeHealth(bot: Bot, everyMs: number): { stop(): Promise<number[]> } {
  const times: number[] = [];
  const probes: Promise<void>[] = [];
  let probing = true;
  const started = performance.now();
  const probe = async () => {
    const began = performance.now();
    await (await fetch(`${bot.url}/health`)).arrayBuffer();
    times.push(performance.now() - began);
  };
  const sending = (async () => {
    for (let index = 0; probing; index++) {
      const wait = started + index * everyMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (probing) probes.push(probe());
    }
  })();
  return {
    async stop() {
      probing = false;
      await sending;
      await Promise.all(probes);
      return times;
    },
  };
}

/** Runs `work` over `items` with at most `connections` requests in flight. */
export async function pool<T>(items: T[], connections: number, work: (item: T) => Promise<void>): Promise<void> {
  let index = 0;
  await Promise.all(
    Array.from({ length: Math.min(connections, items.length) }, async () => {
      while (index < items.length) await work(items[index++]!);
    }),
  );
}

export const newChats = (count: number) => Array.from({ length: count }, () => nextChatId++);

/** Sends `perChat` messages to each chat; one sender per chat keeps each chat's order, at most `connections` at once. */
export async function sendAll(
  bot: Bot,
  chats: number[],
  perChat: number,
  connections: number,
  ackTimes?: number[],
): Promise<Map<number, string[]>> {
  const sent = new Map<number, string[]>();
  await pool(chats, connections, async (chatId) => {
    const markers: string[] = [];
    sent.set(chatId, markers);
    for (let sequence = 0; sequence < perChat; sequence++) {
      const marker = `m${chatId}-${sequence}`;
      markers.push(marker);
      const took = await post(bot, update(chatId, marker));
      ackTimes?.push(took);
    }
  });
  return sent;
}

/**
 * Sends in rounds: every chat's first message, then every chat's second, and so on, as Telegram delivers many
 * people's messages over a short time. A chat's next message still waits for the webhook to take its previous one.
 */
export async function sendRounds(
  bot: Bot,
  chats: number[],
  perChat: number,
  connections: number,
): Promise<Map<number, string[]>> {
  const sent = new Map<number, string[]>(chats.map((chatId) => [chatId, []]));
  const lanes = new ChatLanes();
  const queue = Array.from({ length: perChat }, (_, sequence) => chats.map((chatId) => ({ chatId, sequence }))).flat();
  await pool(queue, connections, async ({ chatId, sequence }) => {
    const marker = `m${chatId}-${sequence}`;
    sent.get(chatId)!.push(marker);
    await lanes.after(chatId, () => post(bot, update(chatId, marker)));
  });
  return sent;
}

/**
 * Each chat's sends one after another, as Telegram delivers a chat's updates: `after` starts its work once the chat's
 * previous work has ended. The order is taken when `after` is called (before any await), so that work picked up by
 * several connections at once still goes out in the order it was picked up.
 */
export class ChatLanes {
  private readonly last = new Map<number, Promise<unknown>>();

  after<T>(chatId: number, work: () => Promise<T>): Promise<T> {
    const previous = this.last.get(chatId) ?? Promise.resolve();
    const next = previous.then(work, work);
    this.last.set(chatId, next);
    return next;
  }
}

/** Every message answered exactly once, in the order it was sent. */
export function intact(watcher: Watcher, sent: Map<number, string[]>): { ok: boolean; problem?: string } {
  for (const [chatId, markers] of sent) {
    const answered = watcher.markers(chatId);
    if (answered.join(",") !== markers.join(",")) {
      return {
        ok: false,
        problem: `chat ${chatId}: sent ${markers.join(",")} but answers carried ${answered.join(",")}`,
      };
    }
  }
  return { ok: true };
}

export async function drained(watcher: Watcher, sent: Map<number, string[]>, timeoutMs: number): Promise<void> {
  const total = [...sent.values()].reduce((sum, markers) => sum + markers.length, 0);
  const answered = () => [...sent.keys()].reduce((sum, chatId) => sum + watcher.markers(chatId).length, 0);
  await watcher.until(() => answered() >= total, timeoutMs, `${total} answers`);
}

/** Sequential request → answer round trips, the reply latency of each. */
export async function roundTrips(bot: Bot, watcher: Watcher, chats: number[], count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let index = 0; index < count; index++) {
    const chatId = chats[index % chats.length]!;
    const marker = freshMarker(chatId);
    const started = Date.now();
    await post(bot, update(chatId, marker));
    await watcher.until(() => watcher.answeredAt(chatId, marker) !== undefined, 30_000, `answer to ${marker}`);
    latencies.push(watcher.answeredAt(chatId, marker)! - started);
  }
  return latencies;
}

/** A marker no message of the chat carried before: answers are matched to messages by it. */
export function freshMarker(chatId: number): string {
  return `m${chatId}-${roundTripSequence++}`;
}

/** A photo message (one size, the fake Telegram serves a 1×1 PNG for any file) with `caption`. */
export function photoUpdate(chatId: number, caption: string): string {
  return messageUpdate(chatId, (id) => ({
    photo: [{ file_id: `photo-${id}`, file_unique_id: `photo-unique-${id}`, width: 1, height: 1, file_size: 70 }],
    caption,
  }));
}

export function toolCall(name: string, args: unknown) {
  return { body: openaiCompletion(null, { toolCalls: [{ name, arguments: args }] }) };
}

export async function script(fakes: Fakes, responses: unknown[], service = "openai"): Promise<void> {
  await fetch(`${fakes.url}/__control/script`, {
    method: "POST",
    body: JSON.stringify({ service, responses }),
  });
}
