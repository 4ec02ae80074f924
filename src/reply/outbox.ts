import type { OutboxItem, OutboxKind, OutboxParcel, OutboxStore } from "../store/outbox-store.ts";
import type { Keyboard, TelegramClient } from "../telegram/client.ts";
import { failureOf, refusesTheChat, type TelegramFailure } from "../telegram/failure.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { nextTry } from "./outbox-retry.ts";
import {
  afterFirst,
  htmlInstead,
  htmlParcel,
  insteadOfEdit,
  isSend,
  menuParcel,
  perform,
  photoParcel,
  plainParcel,
  voiceParcel,
  withFirst,
} from "./outbox-steps.ts";

/** How a message went: Telegram has it, the outbox keeps it for later, or Telegram refused it for good. */
export type Delivery = "sent" | "queued" | "refused";

/** A new message may be sent this many times with its fate unknown (a timeout, a dropped connection), never more. */
const MAX_UNKNOWN_SENDS = 2;
/** Sending one message's pieces may take this long (Telegram's rate-limit waits): the rest then waits in the outbox. */
const SEND_BUDGET_MS = 120_000;

/** What the outbox tells the chat about itself, for the chat's records and its alarm. */
interface OutboxRecords {
  /** Telegram refused the rich form of a message: it went on the HTML path, and the chat remembers it for a while. */
  richRefused(description: string): void;
  /** Telegram refused a message for good (the bot blocked or kicked, the chat gone, a message it will never take). */
  refused(description: string): void;
  /** Messages that waited were given up (refused, or past OUTBOX_MAX_HOURS). */
  dropped(count: number, reason: string): void;
  /** What waits changed (a message queued, or the front one went): the alarm and the chat's marker follow. */
  changed(): Promise<void>;
}

export interface OutboxOptions {
  /** The chat's client; its retries serve a first send, and the outbox's own retries go without them. */
  telegram: TelegramClient;
  store: OutboxStore;
  /** How long a message may wait before it is given up (OUTBOX_MAX_HOURS). */
  maxAgeMs: number;
  records: OutboxRecords;
  now?: () => number;
  random?: () => number;
  /** Reads a kept photo back by its key (the media bucket), for a photo that waited. */
  keptPhoto?: (key: string) => Promise<Uint8Array | undefined>;
}

/** What every view of one chat's outbox shares: the line its sends take in turn, and photos held for a first send. */
interface Line {
  chain: Promise<unknown>;
  photos: Map<string, Uint8Array>;
}

type Unavailable = Extract<TelegramFailure, { kind: "unavailable" }>;

/** How far a run of a parcel's steps got. */
type RunEnd =
  | { kind: "done" }
  | { kind: "unavailable"; parcel: OutboxParcel; failure: Unavailable; uncertain: number }
  | { kind: "refused"; description: string };

/** What a run reports as it goes, for a parcel that is already a row. */
interface RunHooks {
  /** Sends of the first step whose fate is unknown so far. */
  uncertain: number;
  /** A send of the first step is about to go out: `uncertain` counts it until its fate is known. */
  sending?: (uncertain: number) => void;
  /** A step went through (or was replaced): this is what is left. */
  advanced?: (parcel: OutboxParcel) => void;
  /** No step after the first starts after this time (epoch ms). */
  deadline?: number;
  /** A new text message went, with this id. */
  sent?: (messageId: number) => void;
}

/**
 * A chat's final messages (answers, notices, task results, helpers' reports) on their way to Telegram. A message is
 * sent at once when nothing waits, with the client's own quick retries; if Telegram is unavailable (a 5xx after
 * them, a long 429, a timeout, a dropped connection), what is left of it is kept in the chat object's SQLite and
 * tried again on the alarm, with backoff and jitter and after Telegram's `retry_after`, until it goes or passes the
 * limit. While anything waits, newer messages queue behind it, so the chat sees them in the order they were made.
 *
 * A refusal (a 4xx other than 429) ends a message at once and is recorded; a refusal of the chat itself (blocked,
 * kicked, chat not found) ends everything waiting. A refusal of the rich form sends the rest on the HTML path. A
 * new message whose send's fate is unknown is tried once more, never a third time: a crash or a timeout while
 * sending may show it twice, and never loses it. Edits and deletions are repeated freely (they change nothing twice).
 */
export class Outbox {
  private readonly now: () => number;

  constructor(
    private readonly options: OutboxOptions,
    private readonly line: Line = { chain: Promise.resolve(), photos: new Map() },
    /** What this view's messages wait for before they take their place in the line (see `after`). */
    private readonly gate?: Promise<unknown>,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The same outbox (its queue and its one line of sends), whose messages take their place in the line only once
   * `gate` has settled: a turn whose earlier turn's answer is still being delivered posts behind that answer.
   */
  after(gate: Promise<unknown>): Outbox {
    return new Outbox(this.options, this.line, gate);
  }

  /** Whether any message waits. */
  get waiting(): boolean {
    return this.options.store.nextTryAt() !== undefined;
  }

  /** How many messages wait, since when, and when the next try is. */
  summary(): ReturnType<OutboxStore["summary"]> {
    return this.options.store.summary();
  }

  /**
   * Delivers a message: sent now when nothing waits (or what waits goes first, now), else queued behind what waits.
   * Never throws for Telegram's sake.
   */
  post(kind: OutboxKind, parcel: OutboxParcel, sent?: (messageId: number) => void): Promise<Delivery> {
    return this.serially(async () => {
      const { store } = this.options;
      if (this.waiting) {
        // A newer message is a good moment to try again (Telegram's retry_after still holds).
        store.tryNow(this.now());
        await this.flushNow();
        if (this.waiting) {
          store.add(kind, parcel, this.now());
          await this.options.records.changed();
          return "queued";
        }
      }
      const end = await this.run(parcel, this.options.telegram, {
        uncertain: 0,
        deadline: this.now() + SEND_BUDGET_MS,
        ...(sent ? { sent } : {}),
      });
      switch (end.kind) {
        case "done":
          return "sent";
        case "refused":
          this.refused(end.description);
          return "refused";
        case "unavailable": {
          const now = this.now();
          console.warn(
            `chat ${parcel.target.chatId}: Telegram is unavailable (${end.failure.description}); a message (${kind}) waits in the outbox`,
          );
          store.add(kind, end.parcel, now, {
            attempts: 1,
            ...nextTry(end.failure, 1, now, this.options.random),
            error: end.failure.description,
            uncertain: end.uncertain,
          });
          await this.options.records.changed();
          return "queued";
        }
      }
    });
  }

  /**
   * A menu: a message with buttons (a confirmation, a helper's Stop). `sent` learns its id when it goes at once (one
   * that waited goes later, and its buttons stay as they are).
   */
  postMenu(
    kind: OutboxKind,
    target: ChatTarget,
    markdown: string,
    keyboard: Keyboard,
    sent?: (messageId: number) => void,
  ): Promise<Delivery> {
    return this.post(kind, menuParcel(target, markdown, keyboard), sent);
  }

  /**
   * A photo: its bytes are held in memory for the first send; if it must wait, it is read back from `key` (the media
   * bucket) when it is tried again, and described in words when neither is there.
   */
  async postPhoto(
    kind: OutboxKind,
    target: ChatTarget,
    photo: { bytes: Uint8Array; key?: string | undefined; fileName: string; caption?: string | undefined },
  ): Promise<Delivery> {
    const ref = crypto.randomUUID();
    this.line.photos.set(ref, photo.bytes);
    try {
      return await this.post(kind, photoParcel(target, { ref, ...photo }));
    } finally {
      this.line.photos.delete(ref);
    }
  }

  /** A spoken answer: its bytes are held in memory for the first send, and it is described if it had to wait. */
  async postVoice(
    target: ChatTarget,
    voice: { bytes: Uint8Array; fileName: string; caption?: string | undefined; replyTo?: number | undefined },
  ): Promise<Delivery> {
    const ref = crypto.randomUUID();
    this.line.photos.set(ref, voice.bytes);
    try {
      return await this.post("answer", voiceParcel(target, { ref, ...voice }));
    } finally {
      this.line.photos.delete(ref);
    }
  }

  /** Markdown to another chat (a cross-chat send), in this chat's queue: that chat's refusal ends only it. */
  postElsewhere(target: ChatTarget, markdown: string): Promise<Delivery> {
    return this.post("answer", { ...htmlParcel(target, markdown), elsewhere: true });
  }

  /** A notice (plain text: why something did not happen, what is missing). */
  notify(target: ChatTarget, text: string): Promise<Delivery> {
    return this.postPlain("notice", target, text);
  }

  /** Plain text, split at 4,096 characters. */
  postPlain(kind: OutboxKind, target: ChatTarget, text: string): Promise<Delivery> {
    return this.post(kind, plainParcel(target, text));
  }

  /** Markdown as Telegram HTML: a command's answer, a helper's report, a message a tool sends to its own chat. */
  postMarkdown(kind: OutboxKind, target: ChatTarget, markdown: string): Promise<Delivery> {
    return this.post(kind, htmlParcel(target, markdown));
  }

  /** Tries what waits, in order, as far as Telegram takes it; what is past the limit is given up. */
  flush(): Promise<void> {
    return this.serially(() => this.flushNow());
  }

  /** Brings the next try forward to now (Telegram's retry_after still holds) and tries (`/status`, a new message). */
  retryNow(): Promise<void> {
    return this.serially(async () => {
      if (!this.waiting) return;
      this.options.store.tryNow(this.now());
      await this.flushNow();
    });
  }

  private async flushNow(): Promise<void> {
    const { store, records } = this.options;
    let changed = false;
    for (;;) {
      const head = store.head();
      if (head === undefined) break;
      const now = this.now();
      const givenUp = this.pastHope(head, now);
      if (givenUp !== undefined || head.kind === "unreadable") {
        const reason = head.kind === "unreadable" ? `unreadable (${head.problem})` : givenUp;
        console.warn(`chat ${this.chatOf(head)}: a message in the outbox was given up: ${reason}`);
        store.remove(head.id);
        records.dropped(1, reason ?? "given up");
        changed = true;
        continue;
      }
      if (Math.max(head.nextTryAt, head.holdUntil ?? 0) > now) break;
      const end = await this.run(head.parcel, this.options.telegram.withoutRetries(), {
        uncertain: head.uncertain,
        sending: (uncertain) => store.sending(head.id, uncertain),
        advanced: (parcel) => store.advance(head.id, parcel),
      });
      if (end.kind === "unavailable") {
        const later = this.now();
        store.postpone(head.id, {
          ...nextTry(end.failure, head.attempts + 1, later, this.options.random),
          error: end.failure.description,
          uncertain: end.uncertain,
        });
        changed = true;
        break;
      }
      store.remove(head.id);
      changed = true;
      if (end.kind === "refused") {
        this.refused(end.description);
        records.dropped(1, `refused: ${end.description}`);
        if (refusesTheChat(end.description) && head.parcel.elsewhere !== true) {
          // Telegram refuses the chat itself: everything else waiting would be refused too.
          const rest = store.clear();
          if (rest > 0) {
            console.warn(`chat ${head.parcel.target.chatId}: ${rest} more message(s) in the outbox given up`);
            records.dropped(rest, `refused: ${end.description}`);
          }
        }
      }
    }
    if (changed) await records.changed();
  }

  /** Why the front message is given up without a try, if it is: it has waited past the limit. */
  private pastHope(head: OutboxItem, now: number): string | undefined {
    if (head.kind === "unreadable" || now - head.createdAt <= this.options.maxAgeMs) return undefined;
    const hours = Math.round((now - head.createdAt) / 3_600_000);
    return `a message (${head.kind}) Telegram did not take for ${hours} h (${head.attempts} tries)`;
  }

  private chatOf(head: OutboxItem): string {
    return head.kind === "unreadable" ? "?" : String(head.parcel.target.chatId);
  }

  private refused(description: string): void {
    console.warn(`Telegram refused a message for good: ${description}`);
    this.options.records.refused(description);
  }

  /** Runs a parcel's steps in order through `telegram` until one fails or all went. */
  private async run(parcel: OutboxParcel, telegram: TelegramClient, hooks: RunHooks): Promise<RunEnd> {
    let current = parcel;
    let uncertain = hooks.uncertain;
    let first = true;
    const advance = (next: OutboxParcel | undefined): boolean => {
      uncertain = 0;
      if (next === undefined) return false;
      current = next;
      hooks.advanced?.(next);
      return true;
    };
    for (;;) {
      const step = current.steps[0]!;
      if (!first && hooks.deadline !== undefined && this.now() > hooks.deadline) {
        const failure: Unavailable = { kind: "unavailable", description: "sending took too long", uncertain: false };
        return { kind: "unavailable", parcel: current, failure, uncertain };
      }
      first = false;
      if (isSend(step) && uncertain >= MAX_UNKNOWN_SENDS) {
        // Sent twice already with its fate unknown: most likely it arrived; a third copy is worse than none.
        console.warn(`chat ${current.target.chatId}: a message sent twice without an answer is counted as delivered`);
        if (!advance(afterFirst(current))) return { kind: "done" };
        continue;
      }
      if (isSend(step)) hooks.sending?.(uncertain + 1);
      let failure: TelegramFailure | undefined;
      try {
        const messageId = await perform(telegram, current.target, step, (photo) => this.photoBytes(photo));
        if (messageId !== undefined) hooks.sent?.(messageId);
      } catch (error) {
        failure = failureOf(error);
      }
      if (failure === undefined) {
        if (!advance(afterFirst(current))) return { kind: "done" };
        continue;
      }
      if (failure.kind === "unavailable") {
        const unknown = isSend(step) && failure.uncertain ? 1 : 0;
        return { kind: "unavailable", parcel: current, failure, uncertain: uncertain + unknown };
      }
      if (failure.rich && (step.kind === "send-rich" || step.kind === "edit-rich")) {
        this.options.records.richRefused(failure.description);
        if (!advance(htmlInstead(current))) return { kind: "done" };
        continue;
      }
      if (!isSend(step) && !refusesTheChat(failure.description)) {
        // The message to edit is gone or can no longer be edited: its content comes as a new message instead.
        const instead = insteadOfEdit(step);
        if (!advance(instead === undefined ? afterFirst(current) : withFirst(current, instead)))
          return { kind: "done" };
        continue;
      }
      return { kind: "refused", description: failure.description };
    }
  }

  private async photoBytes(photo: { ref: string; key?: string | undefined }): Promise<Uint8Array | undefined> {
    const held = this.line.photos.get(photo.ref);
    if (held !== undefined) return held;
    if (photo.key === undefined || !this.options.keptPhoto) return undefined;
    try {
      return await this.options.keptPhoto(photo.key);
    } catch {
      return undefined;
    }
  }

  private async serially<T>(work: () => Promise<T>): Promise<T> {
    // Before taking a place in the line, never in it: what the gate waits for goes through this same line.
    if (this.gate) await this.gate.catch(() => undefined);
    const next = this.line.chain.then(work, work);
    this.line.chain = next.catch(() => undefined);
    return next;
  }
}
