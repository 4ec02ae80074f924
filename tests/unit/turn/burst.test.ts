import { describe, expect, it } from "vitest";
import type { IncomingMessage } from "../../../src/telegram/incoming-message.ts";
import { ActiveRun } from "../../../src/turn/active-run.ts";
import { Burst } from "../../../src/turn/burst.ts";

function message(id: number, text: string): IncomingMessage {
  return {
    updateId: id,
    messageId: id,
    chat: { id: 1001, type: "private", isForum: false },
    from: { id: 1001, name: "Ada" },
    text,
    date: 1,
  };
}

describe("a burst", () => {
  it("lets no message in before it opens, nor after it closes", () => {
    const burst = new Burst();
    expect(burst.join({ inboxId: 1, message: message(1, "early") })).toBe(false);
    burst.open();
    expect(burst.join({ inboxId: 2, message: message(2, "in time") })).toBe(true);
    burst.close();
    expect(burst.join({ inboxId: 3, message: message(3, "late") })).toBe(false);
    // A closed burst does not open again.
    burst.open();
    expect(burst.isOpen).toBe(false);
    expect(burst.take().map((joined) => joined.message.text)).toEqual(["in time"]);
    expect(burst.inboxIds).toEqual([2]);
  });

  it("aborts the attempt under way when a message joins, and only that attempt", () => {
    const burst = new Burst();
    const turn = new AbortController();
    burst.open();
    const first = burst.beginAttempt(turn.signal);
    expect(burst.interrupted).toBe(false);
    burst.join({ inboxId: 1, message: message(1, "and another thing") });
    expect(first.aborted).toBe(true);
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
    burst.open();
    burst.join({ inboxId: 7, message: message(7, "one") });
    burst.join({ inboxId: 8, message: message(8, "two") });
    expect(burst.hasWaiting).toBe(true);
    expect(burst.take().map((joined) => joined.inboxId)).toEqual([7, 8]);
    expect(burst.hasWaiting).toBe(false);
    expect(burst.take()).toEqual([]);
    burst.join({ inboxId: 9, message: message(9, "three") });
    expect(burst.inboxIds).toEqual([7, 8, 9]);
  });

  it("closes when its run is stopped or ends, and a joiner's sender becomes an asker", () => {
    const stopped = new Burst();
    stopped.open();
    const run = new ActiveRun([1001], stopped);
    run.addAskers([1001, 501]);
    expect(run.askers).toEqual([1001, 501]);
    expect(run.mayBeStoppedBy(501, false)).toBe(true);
    run.stop("stopped");
    expect(stopped.isOpen).toBe(false);

    const ended = new Burst();
    ended.open();
    new ActiveRun([], ended).end();
    expect(ended.isOpen).toBe(false);
  });
});
