import type { IncomingMessage } from "../telegram/incoming-message.ts";

/** A message that joined a running turn, and its inbox row (which ends with the turn's). */
export interface JoinedMessage {
  inboxId: number;
  message: IncomingMessage;
}

/**
 * At most this many messages join one turn. Each that arrives after the model was called makes the call again, and
 * the dropped call's tokens are paid: a flood of messages (a paste split by the client, a script) would restart it
 * without end. The ones after wait, and the next turn answers them together.
 */
export const MAX_JOINED = 10;

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

  close(): void {
    this.open = false;
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
    // No reason of our own: the runtime logs a fetch whose request body was still going out as an uncaught error
    // unless its signal carries the default one. `interrupted` says why it was aborted.
    this.attempt?.abort();
    return true;
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
