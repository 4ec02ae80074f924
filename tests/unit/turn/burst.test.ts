import { describe, expect, it } from "vitest";
import type { IncomingMessage } from "../../../src/telegram/incoming-message.ts";
import { ActiveRun } from "../../../src/turn/active-run.ts";
import { Burst, MAX_JOINED } from "../../../src/turn/burst.ts";

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
    const burst = new Burst();
    expect(burst.isOpen).toBe(true);
    expect(burst.join({ inboxId: 2, message: message(2, "in time") })).toBe(true);
    burst.close();
    expect(burst.isOpen).toBe(false);
    expect(burst.join({ inboxId: 3, message: message(3, "late") })).toBe(false);
    expect(burst.take().map((joined) => joined.message.text)).toEqual(["in time"]);
    expect(burst.inboxIds).toEqual([2]);
  });

  it("closes once MAX_JOINED messages have joined: a flood does not restart the model call without end", () => {
    const burst = new Burst();
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
    const burst = new Burst();
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
    const burst = new Burst();
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
    const burst = new Burst();
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
    const stopped = new Burst();
    const run = new ActiveRun([501], stopped);
    expect(run.mayBeStoppedBy(502, false)).toBe(false);
    stopped.join({ inboxId: 1, message: message(1, "me too", 502) });
    stopped.join({ inboxId: 2, message: message(2, "and me", 501) });
    expect(run.askers).toEqual([501, 502]);
    expect(stopped.senders).toEqual([502, 501]);
    expect(run.mayBeStoppedBy(502, false)).toBe(true);
    run.stop("stopped");
    expect(stopped.isOpen).toBe(false);

    const ended = new Burst();
    new ActiveRun([], ended).end();
    expect(ended.isOpen).toBe(false);
  });
});
