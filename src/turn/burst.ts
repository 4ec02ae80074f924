import type { IncomingMessage } from "../telegram/incoming-message.ts";

/** A message that joined a running turn, and its inbox row (which ends with the turn's). */
export interface JoinedMessage {
  inboxId: number;
  message: IncomingMessage;
}

/**
 * At most this many messages join one turn; the ones after wait, and the next turn answers them together. A call
 * dropped for a join is paid (its input tokens), so a flood (a paste split by the client, forwarded messages, a
 * script) settles first (see `settle`) instead of calling again for each message.
 */
export const MAX_JOINED = 25;

/** How a turn of several messages waits for the rest before it calls its model (see `Burst.settle`). */
export interface SettleTiming {
  /** A turn holding this many messages or more is a flood in progress: it settles before each call. */
  fromMessages: number;
  /** The call goes out once no message has arrived for this long… */
  quietMs: number;
  /** …or this long after the turn first settled, when messages keep coming; the burst then closes. */
  maxMs: number;
}

/**
 * A client's split paste or a forward of several messages arrives tens of milliseconds apart, a person typing seconds
 * apart; one message and the usual two ("hi", then the question) never wait. Measured in BENCHMARKS.md (issue 41).
 */
const SETTLE: SettleTiming = { fromMessages: 3, quietMs: 100, maxMs: 1500 };

export interface BurstOptions {
  /** The messages the turn was taken with (they arrived just now, as far as the burst knows). */
  messages: number;
  timing?: SettleTiming;
}

/**
 * The way into a chat turn for the messages a person sends right after the ones it answers ("hi", then the question):
 * from the moment its batch is taken from the inbox until it shows anything, a plain message joins the turn. Before
 * the turn calls its model the message is simply among its messages; after, the model call under way (the current
 * attempt) is aborted and made again with all of them, for one answer.
 *
 * It closes for good when anything is shown (an answer's text, a status line, a tool step), when the turn goes on to
 * its answer, when it is stopped or ends, when MAX_JOINED messages have joined, or when something that may not join
 * (a command, a report) is queued behind it. The chat's object decides which messages may try; the burst only says
 * whether one got in.
 */
export class Burst {
  private open = true;
  private waiting: JoinedMessage[] = [];
  private readonly ids: number[] = [];
  private readonly joiners: number[] = [];
  private attempt: AbortController | undefined;
  private readonly taken: number;
  private readonly timing: SettleTiming;
  private lastArrivalAt: number;
  private settleUntil: number | undefined;
  /** Wakes a settle under way when a message joins (its quiet starts over). */
  private arrived: (() => void) | undefined;

  constructor(options: BurstOptions) {
    this.taken = options.messages;
    this.timing = options.timing ?? SETTLE;
    this.lastArrivalAt = Date.now();
  }

  close(): void {
    this.open = false;
    this.arrived?.();
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** A plain message arrived: true when it joined the turn (a model call under way is aborted, to be made again). */
  join(joined: JoinedMessage): boolean {
    if (this.ids.length >= MAX_JOINED) this.open = false;
    if (!this.open) return false;
    this.waiting.push(joined);
    this.ids.push(joined.inboxId);
    const sender = joined.message.from?.id;
    if (sender !== undefined && !this.joiners.includes(sender)) this.joiners.push(sender);
    this.lastArrivalAt = Date.now();
    this.arrived?.();
    // No reason of our own: the runtime logs a fetch whose request body was still going out as an uncaught error
    // unless its signal carries the default one. `interrupted` says why it was aborted.
    this.attempt?.abort();
    return true;
  }

  /**
   * Before a model call: when the turn holds `fromMessages` messages or more, waits until none has arrived for
   * `quietMs`, so that one call answers the flood instead of one call per message, each dropped by the next. After
   * `maxMs` of settling it stops waiting and the burst closes: the messages still coming wait for the next turn.
   * One message, or two, never wait. Returns at once when `signal` ends.
   */
  async settle(signal: AbortSignal): Promise<void> {
    if (!this.open || this.taken + this.ids.length < this.timing.fromMessages) return;
    this.settleUntil ??= Date.now() + this.timing.maxMs;
    const until = this.settleUntil;
    for (;;) {
      const now = Date.now();
      if (now >= until) {
        this.close();
        return;
      }
      const quietAt = this.lastArrivalAt + this.timing.quietMs;
      if (now >= quietAt || signal.aborted || !this.open) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          this.arrived = undefined;
          resolve();
        };
        const timer = setTimeout(done, Math.min(quietAt, until) - now);
        signal.addEventListener("abort", done, { once: true });
        this.arrived = done;
      });
    }
  }

  /**
   * A new model call: its signal ends with the turn's (`turn`), or, while the burst is open, when a message joins. A
   * call made after it closed is not one a join cut short, even when the call before it was.
   */
  beginAttempt(turn: AbortSignal): AbortSignal {
    if (!this.open) {
      this.attempt = undefined;
      return turn;
    }
    const attempt = new AbortController();
    this.attempt = attempt;
    return AbortSignal.any([turn, attempt.signal]);
  }

  /** Whether the current attempt was cut short by a message joining. */
  get interrupted(): boolean {
    return this.attempt?.signal.aborted === true;
  }

  /** Whether messages joined that the turn has not taken yet. */
  get hasWaiting(): boolean {
    return this.waiting.length > 0;
  }

  /** The messages that joined since the last take, in the order they arrived. */
  take(): JoinedMessage[] {
    const taken = this.waiting;
    this.waiting = [];
    return taken;
  }

  /** Every inbox row that joined, taken or not: all of them end with the turn's own. */
  get inboxIds(): readonly number[] {
    return this.ids;
  }

  /** Everyone whose message joined, taken or not: they asked too (and may stop the turn). */
  get senders(): readonly number[] {
    return this.joiners;
  }
}
