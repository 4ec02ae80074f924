import { describe, expect, it } from "vitest";
import type { IncomingMessage } from "../../../src/telegram/incoming-message.ts";
import { ActiveRun } from "../../../src/turn/active-run.ts";
import { Burst, MAX_JOINED, type SettleTiming } from "../../../src/turn/burst.ts";

function message(id: number, text: string, fromId = 1001): IncomingMessage {
  return {
    updateId: id,
    messageId: id,
    chat: { id: -2001, type: "group", isForum: false },
    from: { id: fromId, name: `user ${fromId}` },
    text,
    date: 1,
  };
}

describe("a burst", () => {
  it("lets messages in until it closes, and none after", () => {
    const burst = new Burst({ messages: 1 });
    expect(burst.isOpen).toBe(true);
    expect(burst.join({ inboxId: 2, message: message(2, "in time") })).toBe(true);
    burst.close();
    expect(burst.isOpen).toBe(false);
    expect(burst.join({ inboxId: 3, message: message(3, "late") })).toBe(false);
    expect(burst.take().map((joined) => joined.message.text)).toEqual(["in time"]);
    expect(burst.inboxIds).toEqual([2]);
  });

  it("closes once MAX_JOINED messages have joined: a flood does not restart the model call without end", () => {
    const burst = new Burst({ messages: 1 });
    const turn = new AbortController();
    for (let id = 1; id <= MAX_JOINED; id++) {
      burst.beginAttempt(turn.signal);
      expect(burst.join({ inboxId: id, message: message(id, `part ${id}`) })).toBe(true);
    }
    const attempt = burst.beginAttempt(turn.signal);
    expect(burst.join({ inboxId: MAX_JOINED + 1, message: message(MAX_JOINED + 1, "one too many") })).toBe(false);
    // The call under way goes on; the message waits in the inbox for the next turn, and so does everything after it.
    expect(attempt.aborted).toBe(false);
    expect(burst.isOpen).toBe(false);
    expect(burst.inboxIds).toHaveLength(MAX_JOINED);
  });

  it("does not count a call made after it closed as cut short, even when a join cut the one before", () => {
    const burst = new Burst({ messages: 1 });
    const turn = new AbortController();
    burst.beginAttempt(turn.signal);
    burst.join({ inboxId: 1, message: message(1, "and another thing") });
    expect(burst.interrupted).toBe(true);
    // Closed before the call is made again (here by a command queued behind it): the last call is the turn's own.
    burst.close();
    expect(burst.beginAttempt(turn.signal)).toBe(turn.signal);
    expect(burst.interrupted).toBe(false);
  });

  it("aborts the attempt under way when a message joins, and only that attempt", () => {
    const burst = new Burst({ messages: 1 });
    const turn = new AbortController();
    const first = burst.beginAttempt(turn.signal);
    expect(burst.interrupted).toBe(false);
    burst.join({ inboxId: 1, message: message(1, "and another thing") });
    expect(first.aborted).toBe(true);
    // The default reason: one of ours on a fetch's signal is logged by the runtime as an uncaught error.
    expect(first.reason).toBeInstanceOf(DOMException);
    expect((first.reason as DOMException).name).toBe("AbortError");
    expect(burst.interrupted).toBe(true);
    const second = burst.beginAttempt(turn.signal);
    expect(second.aborted).toBe(false);
    expect(burst.interrupted).toBe(false);
    turn.abort("stopped");
    expect(second.aborted).toBe(true);
    expect(second.reason).toBe("stopped");
  });

  it("hands over the joined messages in order, once, and remembers every row", () => {
    const burst = new Burst({ messages: 1 });
    burst.join({ inboxId: 7, message: message(7, "one") });
    burst.join({ inboxId: 8, message: message(8, "two") });
    expect(burst.hasWaiting).toBe(true);
    expect(burst.take().map((joined) => joined.inboxId)).toEqual([7, 8]);
    expect(burst.hasWaiting).toBe(false);
    expect(burst.take()).toEqual([]);
    burst.join({ inboxId: 9, message: message(9, "three") });
    expect(burst.inboxIds).toEqual([7, 8, 9]);
  });

  it("closes when its run is stopped or ends, and whoever joined may stop the run", () => {
    const stopped = new Burst({ messages: 1 });
    const run = new ActiveRun([501], stopped);
    expect(run.mayBeStoppedBy(502, false)).toBe(false);
    stopped.join({ inboxId: 1, message: message(1, "me too", 502) });
    stopped.join({ inboxId: 2, message: message(2, "and me", 501) });
    expect(run.askers).toEqual([501, 502]);
    expect(stopped.senders).toEqual([502, 501]);
    expect(run.mayBeStoppedBy(502, false)).toBe(true);
    run.stop("stopped");
    expect(stopped.isOpen).toBe(false);

    const ended = new Burst({ messages: 1 });
    new ActiveRun([], ended).end();
    expect(ended.isOpen).toBe(false);
  });

  describe("settling before a call", () => {
    const timing: SettleTiming = { fromMessages: 3, quietMs: 60, maxMs: 400 };
    const never = new AbortController().signal;

    async function elapsed(work: () => Promise<void>): Promise<number> {
      const started = Date.now();
      await work();
      return Date.now() - started;
    }

    it("never waits with one message, or two", async () => {
      const one = new Burst({ messages: 1, timing });
      expect(await elapsed(() => one.settle(never))).toBeLessThan(timing.quietMs);
      const two = new Burst({ messages: 1, timing });
      two.join({ inboxId: 2, message: message(2, "and the question") });
      expect(await elapsed(() => two.settle(never))).toBeLessThan(timing.quietMs);
      expect(two.isOpen).toBe(true);
    });

    it("waits from the third message until none has arrived for quietMs, each arrival starting the quiet over", async () => {
      const burst = new Burst({ messages: 2, timing });
      burst.join({ inboxId: 3, message: message(3, "three") });
      const settled = burst.settle(never).then(() => Date.now());
      // Another arrives while it waits (the turn holds four then): the quiet counts from it.
      await new Promise((resolve) => setTimeout(resolve, 30));
      burst.join({ inboxId: 4, message: message(4, "four") });
      const fourAt = Date.now();
      expect((await settled) - fourAt).toBeGreaterThanOrEqual(timing.quietMs - 5);
      expect(burst.isOpen).toBe(true);
      expect(burst.take().map((joined) => joined.inboxId)).toEqual([3, 4]);
    });

    it("stops waiting after maxMs while messages keep coming, and closes: the rest wait for the next turn", async () => {
      const burst = new Burst({ messages: 3, timing });
      const feeding = setInterval(() => burst.join({ inboxId: 100, message: message(100, "more") }), 20);
      try {
        const waited = await elapsed(() => burst.settle(never));
        expect(waited).toBeGreaterThanOrEqual(timing.maxMs - 5);
        expect(waited).toBeLessThan(timing.maxMs + 200);
      } finally {
        clearInterval(feeding);
      }
      expect(burst.isOpen).toBe(false);
      expect(burst.join({ inboxId: 101, message: message(101, "too late") })).toBe(false);
    });

    it("ends at once when the turn is stopped or the burst closes", async () => {
      const stopped = new Burst({ messages: 3, timing: { ...timing, quietMs: 5_000, maxMs: 10_000 } });
      const turn = new AbortController();
      const waiting = elapsed(() => stopped.settle(turn.signal));
      turn.abort("stopped");
      expect(await waiting).toBeLessThan(1_000);

      const closed = new Burst({ messages: 3, timing: { ...timing, quietMs: 5_000, maxMs: 10_000 } });
      const closing = elapsed(() => closed.settle(never));
      closed.close();
      expect(await closing).toBeLessThan(1_000);
    });
  });
});
