/** The part of Durable Object storage the schedule drives. */
export interface AlarmStorage {
  setAlarm(at: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

/** What the chat object has due, read when the next alarm is planned. */
export interface DueWork {
  /** Inbox rows wait to be handled. */
  hasPending(): boolean;
  /** The next scheduled task's time, if any. */
  nextTaskAt(): number | undefined;
  /** When buffered usage records should be written, if any are buffered. */
  nextUsageFlushAt(): number | undefined;
  /** When the outbox next tries the messages Telegram could not take, if any wait. */
  nextOutboxAt(): number | undefined;
}

/** When the alarm should next fire: now if messages wait, else the earliest due work (never in the past), or never. */
export function nextWakeAt(work: DueWork, now: number): number | null {
  if (work.hasPending()) return now;
  const candidates = [work.nextTaskAt(), work.nextUsageFlushAt(), work.nextOutboxAt()].filter(
    (time) => time !== undefined,
  );
  return candidates.length === 0 ? null : Math.max(Math.min(...candidates), now);
}

/**
 * A chat object's one alarm, and the drain it runs. All work happens in the alarm (which the platform retries if the
 * object dies), one drain at a time. A message that arrives while a drain runs sets no second alarm: the drain takes
 * it, or re-arms the alarm as it ends. The alarm time this instance last set is remembered, so that a message
 * arriving when the alarm is already due costs no storage write (each is a commit).
 */
export class WakeSchedule {
  /** The alarm as this instance last set it: a time, none (null), or unknown (a new instance, or an alarm running). */
  private known: number | null | undefined;
  private running: Promise<void> | undefined;
  private arrivedWhileRunning = false;
  private runStartedAt = 0;

  constructor(
    private readonly storage: AlarmStorage,
    private readonly work: DueWork,
    private readonly now: () => number = Date.now,
  ) {}

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

  /** New work was queued: make sure a drain takes it now (or within `withinMs`, to let the rest of an album in). */
  async workArrived(withinMs = 0): Promise<void> {
    if (this.running) {
      this.arrivedWhileRunning = true;
      return;
    }
    await this.wakeBy(this.now() + withinMs);
  }

  /** The alarm handler: runs `work` as the drain, then sets the alarm for what is due next. */
  async runAlarm(work: () => Promise<void>): Promise<void> {
    this.known = undefined;
    const drain = this.drainWith(work);
    this.running = drain;
    try {
      await drain;
    } finally {
      if (this.running === drain) this.running = undefined;
    }
  }

  /** Sets (or deletes) the alarm for the earliest due work. */
  async replan(): Promise<void> {
    const at = nextWakeAt(this.work, this.now());
    if (at === null) await this.storage.deleteAlarm();
    else await this.storage.setAlarm(at);
    this.known = at;
  }

  private async drainWith(work: () => Promise<void>): Promise<void> {
    this.runStartedAt = this.now();
    await work();
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
