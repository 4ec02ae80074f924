import type { IncomingMessage } from "../telegram/incoming-message.ts";

/** A message that joined a running turn, and its inbox row (which ends with the turn's). */
export interface JoinedMessage {
  inboxId: number;
  message: IncomingMessage;
}

/** The reason an attempt's signal is aborted with when a message joins (a stop has its own reasons). */
const JOINED = "a message joined the turn";

/**
 * The way into a running chat turn for the messages a person sends right after the ones it answers ("hi", then the
 * question): while the turn has shown nothing, a plain message joins it, the model call under way (the current
 * attempt) is aborted, and the turn calls the model again with all its messages, for one answer.
 *
 * It opens once the turn is admitted and has a model, and closes for good when anything is shown (an answer's text, a
 * status line, a tool step), when the turn goes on to its answer, or when it is stopped. The chat's object decides
 * which messages may try (plain ones, with nothing else queued before them); the burst only says whether one got in.
 */
export class Burst {
  private state: "not yet" | "open" | "closed" = "not yet";
  private waiting: JoinedMessage[] = [];
  private readonly ids: number[] = [];
  private attempt: AbortController | undefined;

  open(): void {
    if (this.state === "not yet") this.state = "open";
  }

  close(): void {
    this.state = "closed";
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  /** A plain message arrived: true when it joined the turn (the model call under way is aborted, to be made again). */
  join(joined: JoinedMessage): boolean {
    if (this.state !== "open") return false;
    this.waiting.push(joined);
    this.ids.push(joined.inboxId);
    this.attempt?.abort(JOINED);
    return true;
  }

  /** A new model call: its signal ends with the turn's (`turn`), or when a message joins. */
  beginAttempt(turn: AbortSignal): AbortSignal {
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
}
