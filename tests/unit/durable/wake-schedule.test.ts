import { describe, expect, it } from "vitest";
import {
  type AlarmStorage,
  type DueWork,
  NET_AFTER_MS,
  nextWakeAt,
  RETRY_AFTER_MS,
  WakeSchedule,
} from "../../../src/durable/wake-schedule.ts";

/** A promise with its resolve and reject at hand, to hold a drain (or a storage write) open. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Due work as plain fields a test sets. */
function workOf(initial: { pending?: boolean; taskAt?: number; flushAt?: number; outboxAt?: number } = {}) {
  const state = {
    pending: false,
    taskAt: undefined as number | undefined,
    flushAt: undefined as number | undefined,
    outboxAt: undefined as number | undefined,
  };
  Object.assign(state, initial);
  const work: DueWork = {
    hasPending: () => state.pending,
    nextTaskAt: () => state.taskAt,
    nextD1FlushAt: () => state.flushAt,
    nextOutboxAt: () => state.outboxAt,
  };
  return { state, work };
}

type StorageCall = ["setAlarm", number] | ["deleteAlarm"];

/** Alarm storage that records its calls; `hold` makes the next write wait until released. */
function storageOf() {
  const calls: StorageCall[] = [];
  let held: Promise<void> | undefined;
  const storage: AlarmStorage = {
    async setAlarm(at) {
      calls.push(["setAlarm", at]);
      await held;
    },
    async deleteAlarm() {
      calls.push(["deleteAlarm"]);
      await held;
    },
    async sync() {},
  };
  return {
    calls,
    storage,
    hold() {
      const gate = deferred();
      held = gate.promise;
      return () => {
        held = undefined;
        gate.resolve();
      };
    },
  };
}

function setup(
  initial: { pending?: boolean; taskAt?: number; flushAt?: number; outboxAt?: number } = {},
  options: { budgetMs?: number } = {},
) {
  const clock = { now: 1_000_000 };
  const { state, work } = workOf(initial);
  const { calls, storage, hold } = storageOf();
  const schedule = new WakeSchedule({ storage, work, now: () => clock.now, ...options });
  return { clock, state, calls, hold, schedule, storage, work };
}

/** Lets every pending microtask (and promise chain) run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("nextWakeAt", () => {
  const now = 10_000;

  it("is now when messages wait, whatever else is due", () => {
    expect(nextWakeAt(workOf({ pending: true }).work, now)).toBe(now);
    expect(nextWakeAt(workOf({ pending: true, taskAt: now + 5000, flushAt: now - 5000 }).work, now)).toBe(now);
  });

  it("is the earliest of the next task, the usage flush and the outbox's next try", () => {
    expect(nextWakeAt(workOf({ taskAt: now + 5000, flushAt: now + 3000 }).work, now)).toBe(now + 3000);
    expect(nextWakeAt(workOf({ taskAt: now + 5000, outboxAt: now + 4000 }).work, now)).toBe(now + 4000);
    expect(nextWakeAt(workOf({ outboxAt: now + 7000, flushAt: now + 9000 }).work, now)).toBe(now + 7000);
    expect(nextWakeAt(workOf({ taskAt: now + 2000, flushAt: now + 3000 }).work, now)).toBe(now + 2000);
    expect(nextWakeAt(workOf({ taskAt: now + 2000 }).work, now)).toBe(now + 2000);
    expect(nextWakeAt(workOf({ flushAt: now + 3000 }).work, now)).toBe(now + 3000);
  });

  it("is never in the past", () => {
    expect(nextWakeAt(workOf({ taskAt: now - 60_000 }).work, now)).toBe(now);
    expect(nextWakeAt(workOf({ taskAt: now + 60_000, flushAt: now - 1 }).work, now)).toBe(now);
  });

  it("treats a time of 0 as due, not as missing", () => {
    expect(nextWakeAt(workOf({ taskAt: 0 }).work, now)).toBe(now);
  });

  it("is null when nothing is due", () => {
    expect(nextWakeAt(workOf().work, now)).toBeNull();
  });
});

describe("WakeSchedule.workArrived", () => {
  it("sets the alarm for now while idle, and a second arrival costs no second write", async () => {
    const { clock, calls, schedule } = setup({ pending: true });
    // Without a drain at once, arriving work waits for the alarm.
    expect(schedule.drainsAtOnce()).toBe(false);
    await schedule.workArrived();
    expect(calls).toEqual([["setAlarm", clock.now]]);
    await schedule.workArrived();
    expect(calls).toHaveLength(1);
    // Later arrivals are covered by the alarm already due.
    clock.now += 5000;
    await schedule.workArrived();
    expect(calls).toHaveLength(1);
  });

  it("writes again in a new instance, which cannot know the alarm", async () => {
    const first = setup({ pending: true });
    await first.schedule.workArrived();
    const second = new WakeSchedule({ storage: first.storage, work: first.work, now: () => first.clock.now });
    await second.workArrived();
    expect(first.calls).toEqual([
      ["setAlarm", first.clock.now],
      ["setAlarm", first.clock.now],
    ]);
  });

  it("moves a later alarm forward", async () => {
    const { clock, calls, schedule, state } = setup({ taskAt: 1_000_000 + 60_000 });
    await schedule.replan();
    expect(calls).toEqual([["setAlarm", clock.now + 60_000]]);
    state.pending = true;
    await schedule.workArrived();
    expect(calls).toEqual([
      ["setAlarm", clock.now + 60_000],
      ["setAlarm", clock.now],
    ]);
  });

  it("writes nothing when a replan finds the alarm set for that time already, and writes when it moves", async () => {
    const { clock, calls, schedule, state } = setup({ flushAt: 1_000_000 + 30_000 });
    await schedule.replan();
    await schedule.replan();
    expect(calls).toEqual([["setAlarm", clock.now + 30_000]]);
    state.flushAt = undefined;
    await schedule.replan();
    await schedule.replan();
    expect(calls).toEqual([["setAlarm", clock.now + 30_000], ["deleteAlarm"]]);
    // An alarm that ran leaves this instance not knowing what is set: the next replan writes.
    await schedule.runAlarm(async () => {});
    expect(calls).toEqual([["setAlarm", clock.now + 30_000], ["deleteAlarm"], ["deleteAlarm"]]);
  });

  it("sets the alarm after a replan deleted it", async () => {
    const { clock, calls, schedule } = setup();
    await schedule.replan();
    expect(calls).toEqual([["deleteAlarm"]]);
    await schedule.workArrived();
    expect(calls).toEqual([["deleteAlarm"], ["setAlarm", clock.now]]);
  });
});

describe("WakeSchedule.runAlarm", () => {
  it("deletes the alarm when nothing is due after the drain", async () => {
    const { calls, schedule } = setup();
    await schedule.runAlarm(async () => {});
    expect(calls).toEqual([["deleteAlarm"]]);
  });

  it("sets the alarm for the next task or usage flush after the drain", async () => {
    const { clock, calls, schedule } = setup({ taskAt: 1_000_000 + 90_000, flushAt: 1_000_000 + 30_000 });
    await schedule.runAlarm(async () => {});
    expect(calls).toEqual([["setAlarm", clock.now + 30_000]]);
  });

  it("plans from what the drain left behind, at the time the drain ended", async () => {
    const { clock, calls, schedule, state } = setup({ pending: true });
    await schedule.runAlarm(async () => {
      clock.now += 2000;
      state.pending = false;
      state.taskAt = clock.now + 10_000;
    });
    expect(calls).toEqual([["setAlarm", 1_000_000 + 2000 + 10_000]]);
  });

  it("is draining while the drain runs, and not after", async () => {
    const { clock, schedule } = setup();
    expect(schedule.isDraining).toBe(false);
    expect(schedule.drain).toBeUndefined();
    const gate = deferred();
    const startedAt = clock.now;
    const running = schedule.runAlarm(() => gate.promise);
    expect(schedule.isDraining).toBe(true);
    expect(schedule.drain).toBeInstanceOf(Promise);
    expect(schedule.drainStartedAt).toBe(startedAt);
    clock.now += 500;
    await settle();
    expect(schedule.isDraining).toBe(true);
    gate.resolve();
    await running;
    expect(schedule.isDraining).toBe(false);
    expect(schedule.drain).toBeUndefined();
    expect(schedule.drainStartedAt).toBe(startedAt);
  });

  it("sets no alarm for work that arrives during the drain, and re-arms it as the drain ends", async () => {
    const { clock, calls, schedule, state } = setup();
    const gate = deferred();
    const running = schedule.runAlarm(() => gate.promise);
    state.pending = true;
    await schedule.workArrived();
    await schedule.workArrived();
    expect(calls).toEqual([]);
    clock.now += 700;
    gate.resolve();
    await running;
    expect(calls).toEqual([["setAlarm", clock.now]]);
  });

  it("tells a drain waiting for arrivals of a message at once, but not of an album's photo", async () => {
    const { schedule, state } = setup();
    const gate = deferred();
    const seen: string[] = [];
    const running = schedule.runAlarm(async () => {
      await schedule.arrival();
      seen.push("first arrival");
      await schedule.arrival();
      seen.push("second arrival");
      await gate.promise;
    });
    state.pending = true;
    await settle();
    await schedule.workArrived(1_500);
    await settle();
    expect(seen).toEqual([]);
    await schedule.workArrived();
    await settle();
    expect(seen).toEqual(["first arrival"]);
    await schedule.workArrived();
    await settle();
    expect(seen).toEqual(["first arrival", "second arrival"]);
    state.pending = false;
    gate.resolve();
    await running;
  });

  it("re-arms the alarm for work that arrives while the drain's replan is being written", async () => {
    const { clock, calls, hold, schedule, state } = setup();
    const release = hold();
    const running = schedule.runAlarm(async () => {});
    await settle();
    // The drain found nothing due and is deleting the alarm when a message arrives.
    expect(calls).toEqual([["deleteAlarm"]]);
    state.pending = true;
    await schedule.workArrived();
    expect(calls).toEqual([["deleteAlarm"]]);
    release();
    await running;
    expect(calls).toEqual([["deleteAlarm"], ["setAlarm", clock.now]]);
    expect(schedule.isDraining).toBe(false);
  });

  it("does not re-arm for arrivals during the drain that it already handled", async () => {
    const { calls, schedule, state } = setup();
    const gate = deferred();
    const running = schedule.runAlarm(() => gate.promise);
    state.pending = true;
    await schedule.workArrived();
    // The drain takes the message before it ends.
    state.pending = false;
    gate.resolve();
    await running;
    expect(calls).toEqual([["deleteAlarm"]]);
  });

  it("propagates a drain's error, leaves isDraining false, and writes nothing", async () => {
    const { calls, schedule } = setup({ pending: true });
    const gate = deferred();
    const running = schedule.runAlarm(() => gate.promise);
    expect(schedule.isDraining).toBe(true);
    const failure = new Error("the turn blew up");
    gate.reject(failure);
    await expect(running).rejects.toBe(failure);
    expect(schedule.isDraining).toBe(false);
    expect(schedule.drain).toBeUndefined();
    // No replan: the platform retries the alarm. The next arrival cannot rely on an alarm it knows of.
    expect(calls).toEqual([]);
  });

  it("forgets the alarm it knew when an alarm runs, so the next arrival writes", async () => {
    const { clock, calls, schedule, state } = setup({ pending: true });
    await schedule.workArrived();
    const gate = deferred();
    const running = schedule.runAlarm(() => gate.promise);
    gate.reject(new Error("failed"));
    await expect(running).rejects.toThrow("failed");
    state.pending = true;
    await schedule.workArrived();
    expect(calls).toEqual([
      ["setAlarm", clock.now],
      ["setAlarm", clock.now],
    ]);
  });
});

/** A schedule that starts a drain as work arrives: each drain waits on the gate a test opens, and is counted. */
function setupAtOnce(initial: { pending?: boolean } = {}, options: { budgetMs?: number } = {}) {
  const clock = { now: 1_000_000 };
  const { state, work } = workOf(initial);
  const { calls, storage } = storageOf();
  const gates: ReturnType<typeof deferred<void>>[] = [];
  const keptAlive: Promise<void>[] = [];
  const order: string[] = [];
  let drains = 0;
  const schedule = new WakeSchedule({
    storage: {
      ...storage,
      sync: async () => {
        order.push("stored");
      },
    },
    work,
    now: () => clock.now,
    ...options,
    atOnce: {
      drain: () => {
        order.push("drain");
        drains++;
        const gate = deferred();
        gates.push(gate);
        return gate.promise;
      },
      keepAlive: (running) => keptAlive.push(running),
    },
  });
  return { clock, state, calls, schedule, gates, keptAlive, order, drains: () => drains };
}

describe("WakeSchedule with a drain at once", () => {
  it("stores the net alarm, starts the drain without waiting for it, and replans the net away as it ends", async () => {
    const { clock, calls, schedule, gates, keptAlive, drains, order, state } = setupAtOnce({ pending: true });
    // Said before the arrival (the inbox writes the row as taken when so), and true to what happens.
    expect(schedule.drainsAtOnce()).toBe(true);
    await schedule.workArrived();
    expect(schedule.drainsAtOnce()).toBe(false);
    // The arrival is answered once the net is stored; the drain runs on, kept alive.
    expect(calls).toEqual([["setAlarm", clock.now + NET_AFTER_MS]]);
    await settle();
    expect(drains()).toBe(1);
    // It began once what the arrival wrote was stored (the webhook's answer goes out then), not before.
    expect(order).toEqual(["stored", "drain"]);
    expect(schedule.isDraining).toBe(true);
    expect(keptAlive).toHaveLength(1);
    state.pending = false;
    gates[0]!.resolve();
    await keptAlive[0];
    expect(calls).toEqual([["setAlarm", clock.now + NET_AFTER_MS], ["deleteAlarm"]]);
    expect(schedule.isDraining).toBe(false);
  });

  it("starts no second drain and stores nothing for work that arrives while one runs", async () => {
    const { calls, schedule, gates, keptAlive, drains, state } = setupAtOnce({ pending: true });
    await schedule.workArrived();
    await schedule.workArrived();
    await settle();
    await schedule.workArrived();
    expect(drains()).toBe(1);
    expect(calls).toHaveLength(1);
    // The drain took everything before it ended.
    state.pending = false;
    gates[0]!.resolve();
    await keptAlive[0];
    expect(drains()).toBe(1);
  });

  it("leaves an album's wait to the alarm", async () => {
    const { clock, calls, schedule, drains } = setupAtOnce({ pending: true });
    expect(schedule.drainsAtOnce(1500)).toBe(false);
    await schedule.workArrived(1500);
    await settle();
    expect(calls).toEqual([["setAlarm", clock.now + 1500]]);
    expect(drains()).toBe(0);
    expect(schedule.isDraining).toBe(false);
  });

  it("runs the alarm's own drain only after the one under way has ended", async () => {
    const { schedule, gates, state } = setupAtOnce({ pending: true });
    await schedule.workArrived();
    await settle();
    const order: string[] = [];
    const alarm = schedule.runAlarm(async () => {
      order.push("alarm's drain");
    });
    await settle();
    expect(order).toEqual([]);
    state.pending = false;
    order.push("first drain ends");
    gates[0]!.resolve();
    await alarm;
    expect(order).toEqual(["first drain ends", "alarm's drain"]);
    expect(schedule.isDraining).toBe(false);
  });

  it("brings the alarm forward when the drain fails, so that the platform runs it again soon", async () => {
    const { clock, calls, schedule, gates, keptAlive } = setupAtOnce({ pending: true });
    await schedule.workArrived();
    await settle();
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args.join(" "));
    try {
      gates[0]!.reject(new Error("the turn blew up"));
      await keptAlive[0];
    } finally {
      console.error = original;
    }
    expect(errors).toEqual([expect.stringContaining("the turn blew up")]);
    expect(calls).toEqual([
      ["setAlarm", clock.now + NET_AFTER_MS],
      ["setAlarm", clock.now + RETRY_AFTER_MS],
    ]);
    expect(schedule.isDraining).toBe(false);
  });
});

describe("WakeSchedule: work that arrives after the drain's last take", () => {
  const BUDGET_MS = 600_000;
  /** A schedule with a drain budget whose first drain, started as a message arrived, is under way. */
  async function drainingWithBudget() {
    const setup = setupAtOnce({ pending: true }, { budgetMs: BUDGET_MS });
    await setup.schedule.workArrived();
    await settle();
    return setup;
  }

  it("is drained again at once, by the same drain, with no alarm written in between", async () => {
    const { clock, calls, schedule, gates, keptAlive, drains, state } = await drainingWithBudget();
    // The drain took the first message and is doing its upkeep when the next one arrives.
    state.pending = false;
    clock.now += 1_200;
    state.pending = true;
    await schedule.workArrived();
    gates[0]!.resolve();
    await settle();
    expect(drains()).toBe(2);
    expect(calls).toEqual([["setAlarm", 1_000_000 + NET_AFTER_MS]]);
    state.pending = false;
    gates[1]!.resolve();
    await keptAlive[0];
    expect(drains()).toBe(2);
    // One replan, as the last round ended; the deadline still counts from the first round.
    expect(calls).toEqual([["setAlarm", 1_000_000 + NET_AFTER_MS], ["deleteAlarm"]]);
    expect(schedule.drainStartedAt).toBe(1_000_000);
    expect(schedule.drainDeadline).toBe(1_000_000 + BUDGET_MS);
    expect(schedule.isDraining).toBe(false);
  });

  it("is left to the alarm once the drain's budget is spent", async () => {
    const { clock, calls, schedule, gates, keptAlive, drains } = await drainingWithBudget();
    clock.now += BUDGET_MS;
    await schedule.workArrived();
    gates[0]!.resolve();
    await keptAlive[0];
    expect(drains()).toBe(1);
    expect(calls).toEqual([
      ["setAlarm", 1_000_000 + NET_AFTER_MS],
      ["setAlarm", clock.now],
    ]);
  });

  it("is not drained again when nothing arrived: rows the drain left itself go to the alarm", async () => {
    const { clock, calls, gates, keptAlive, drains } = await drainingWithBudget();
    // Still pending, but only because the drain stopped early (its deadline), not because anything new came.
    gates[0]!.resolve();
    await keptAlive[0];
    expect(drains()).toBe(1);
    expect(calls).toEqual([
      ["setAlarm", 1_000_000 + NET_AFTER_MS],
      ["setAlarm", clock.now],
    ]);
  });

  it("is drained again by an alarm's drain too", async () => {
    const { calls, schedule, state } = setup({ pending: true }, { budgetMs: BUDGET_MS });
    let rounds = 0;
    await schedule.runAlarm(async () => {
      rounds++;
      state.pending = false;
      if (rounds === 1) {
        // A message arrives while the first round does its upkeep (after the round's first await, as in a drain).
        await settle();
        state.pending = true;
        await schedule.workArrived();
      }
    });
    expect(rounds).toBe(2);
    expect(calls).toEqual([["deleteAlarm"]]);
  });
});
