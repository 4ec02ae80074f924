import { errorText } from "../lib/errors.ts";

/** The part of Durable Object storage the schedule drives. */
export interface AlarmStorage {
  setAlarm(at: number): Promise<void>;
  deleteAlarm(): Promise<void>;
  /** Resolves once the writes made so far are stored (and what waited for them, such as an answer, has gone out). */
  sync(): Promise<void>;
}

/** What the chat object has due, read when the next alarm is planned. */
export interface DueWork {
  /** Inbox rows wait to be handled. */
  hasPending(): boolean;
  /** The next scheduled task's time, if any. */
  nextTaskAt(): number | undefined;
  /** When what the object owes D1 (usage records, its directory row) should be written, if anything waits. */
  nextD1FlushAt(): number | undefined;
  /** When the outbox next tries the messages Telegram could not take, if any wait. */
  nextOutboxAt(): number | undefined;
  /** When something open (a question with buttons) next expires, if anything is. */
  nextExpiryAt?(): number | undefined;
}

/** When the alarm should next fire: now if messages wait, else the earliest due work (never in the past), or never. */
export function nextWakeAt(work: DueWork, now: number): number | null {
  if (work.hasPending()) return now;
  const candidates = [work.nextTaskAt(), work.nextD1FlushAt(), work.nextOutboxAt(), work.nextExpiryAt?.()].filter(
    (time) => time !== undefined,
  );
  return candidates.length === 0 ? null : Math.max(Math.min(...candidates), now);
}

/** A drain started as work arrives, and what keeps the object alive until it ends (`ctx.waitUntil`). */
export interface DrainAtOnce {
  drain: () => Promise<void>;
  keepAlive: (running: Promise<void>) => void;
}

export interface WakeScheduleOptions {
  storage: AlarmStorage;
  work: DueWork;
  now?: () => number;
  /** Without it, every drain waits for the alarm. */
  atOnce?: DrainAtOnce;
  /**
   * How long one drain may go on (from its start). Within it, work that arrived after the drain's last take (while
   * it did its upkeep) is drained again at once; past it, or without it, that work waits for the alarm.
   */
  budgetMs?: number;
}

/**
 * How long after a message arrives the alarm fires if the drain that started for it has not ended by then: the net
 * for an object that dies mid-turn. Longer than most turns, so that a drain normally replans it away unfired.
 */
export const NET_AFTER_MS = 30_000;

/**
 * How soon the alarm runs a drain again that failed: about when the platform first retries a failed alarm, rather than
 * when the net would have fired. The inbox's attempt count still ends a message that fails every time.
 */
export const RETRY_AFTER_MS = 2_000;

/**
 * A chat object's one alarm, and the drain it runs, one drain at a time. A message that arrives while no drain runs
 * starts one at once (with `atOnce`): under load the runtime delivers an alarm set for "now" tens to hundreds of
 * milliseconds later, on the path to every answer. The alarm is still set first, NET_AFTER_MS ahead, so that the
 * platform runs the drain again if the object dies before it ends; an album's photos, and everything without `atOnce`,
 * wait for the alarm instead. A message that arrives while a drain runs sets no second alarm: the drain takes it (going
 * round again if it came after the drain's last take, within `budgetMs`), or re-arms the alarm as it ends. The alarm
 * time this instance last set is remembered, so that a message arriving when the alarm is already due costs no storage
 * write (each is a commit).
 */
export class WakeSchedule {
  /** The alarm as this instance last set it: a time, none (null), or unknown (a new instance, or an alarm running). */
  private known: number | null | undefined;
  private running: Promise<void> | undefined;
  private arrivedWhileRunning = false;
  /** The drain waiting for work to arrive (see `arrival`), told when it does. */
  private arrived: (() => void) | undefined;
  private runStartedAt = 0;
  private readonly storage: AlarmStorage;
  private readonly work: DueWork;
  private readonly now: () => number;
  private readonly atOnce: DrainAtOnce | undefined;
  private readonly budgetMs: number;

  constructor(options: WakeScheduleOptions) {
    this.storage = options.storage;
    this.work = options.work;
    this.now = options.now ?? Date.now;
    this.atOnce = options.atOnce;
    this.budgetMs = options.budgetMs ?? 0;
  }

  /** The drain under way, if any (tests wait for it to settle). */
  get drain(): Promise<void> | undefined {
    return this.running;
  }

  get isDraining(): boolean {
    return this.running !== undefined;
  }

  /** When the current (or last) drain began; a turn's deadline counts from here. */
  get drainStartedAt(): number {
    return this.runStartedAt;
  }

  /** When the current (or last) drain's budget ends: it takes no new batch after this, and goes round no more. */
  get drainDeadline(): number {
    return this.runStartedAt + this.budgetMs;
  }

  /**
   * Whether work arriving now (with `workArrived(withinMs)`) starts a drain at once, which then takes it before
   * anything else can: the inbox may write it as taken already.
   */
  drainsAtOnce(withinMs = 0): boolean {
    return this.running === undefined && withinMs <= 0 && this.atOnce !== undefined;
  }

  /**
   * New work was queued: a drain takes it now (or within `withinMs`, to let the rest of an album in). Resolves once
   * the alarm that guarantees it is stored, not when the drain ends.
   */
  async workArrived(withinMs = 0): Promise<void> {
    if (this.running) {
      this.arrivedWhileRunning = true;
      if (withinMs <= 0) this.arrived?.();
      return;
    }
    if (!this.drainsAtOnce(withinMs) || !this.atOnce) {
      await this.wakeBy(this.now() + withinMs);
      return;
    }
    const { drain, keepAlive } = this.atOnce;
    // Marked as running before the first await, so that a message arriving meanwhile starts no second drain.
    let netStored: Promise<void> = Promise.resolve();
    const running = (async () => {
      netStored = this.wakeBy(this.now() + NET_AFTER_MS);
      await netStored;
      // The webhook's answer waits for the message's row and the net to be stored; the drain's first statements and
      // its prompt would hold that up (they run before the runtime gets back to it), so they start once it is out.
      await this.storage.sync();
      await this.drainWith(drain);
    })();
    this.running = running;
    const ended = running
      .catch(async (error: unknown) => {
        console.error(`a drain failed; the alarm retries it: ${errorText(error)}`);
        // The net alarm is stored already; this only brings it forward (and the net stays if that write fails).
        await this.wakeBy(this.now() + RETRY_AFTER_MS).catch(() => undefined);
      })
      .finally(() => {
        if (this.running === running) this.running = undefined;
      });
    keepAlive(ended);
    await netStored;
  }

  /**
   * Resolves when work arrives that the running drain may take at once (not an album's photo, which waits for the
   * rest of its album): a drain that waits for something else (an answer still being delivered) takes it then.
   */
  arrival(): Promise<void> {
    return new Promise((resolve) => {
      const before = this.arrived;
      this.arrived = () => {
        this.arrived = undefined;
        before?.();
        resolve();
      };
    });
  }

  /** The alarm handler: runs `work` as the drain, then sets the alarm for what is due next. */
  async runAlarm(work: () => Promise<void>): Promise<void> {
    this.known = undefined;
    // A drain started as its message arrived is under way, and this is its net (or it outlived NET_AFTER_MS): it
    // ends first, then this drain takes whatever it left.
    while (this.running) await this.running.catch(() => undefined);
    const drain = this.drainWith(work);
    this.running = drain;
    try {
      await drain;
    } finally {
      if (this.running === drain) this.running = undefined;
    }
  }

  /** Sets (or deletes) the alarm for the earliest due work, unless this instance set it for that time already. */
  async replan(): Promise<void> {
    const at = nextWakeAt(this.work, this.now());
    // Already set for then by this instance (a conversation's turns until the usage flush is due): no write, which
    // would be a row written and a commit per turn.
    if (at === this.known) return;
    if (at === null) await this.storage.deleteAlarm();
    else await this.storage.setAlarm(at);
    this.known = at;
  }

  private async drainWith(work: () => Promise<void>): Promise<void> {
    this.runStartedAt = this.now();
    for (;;) {
      this.arrivedWhileRunning = false;
      await work();
      // A message sent as soon as the answer before it was seen (a person in a conversation) often arrives after the
      // drain's last take, while it does its upkeep. Taken by the same drain at once, it does not wait for an alarm,
      // which the runtime delivers tens to hundreds of ms late under load. Only what arrived during this round: rows
      // the drain left pending itself (it stopped at its deadline) go to the alarm, as before.
      if (!this.arrivedWhileRunning || !this.work.hasPending()) break;
      if (this.now() >= this.drainDeadline) break;
    }
    await this.replan();
    // Work queued during the awaits above found the drain still running. No await between the check and the end of
    // the drain, so none can slip through.
    while (this.arrivedWhileRunning) {
      this.arrivedWhileRunning = false;
      if (this.work.hasPending()) await this.wakeBy(this.now());
    }
  }

  /** Makes sure the alarm fires no later than `time`, without a write when it already will. */
  private async wakeBy(time: number): Promise<void> {
    if (this.known !== undefined && this.known !== null && this.known <= time) return;
    this.known = time;
    await this.storage.setAlarm(time);
  }
}
