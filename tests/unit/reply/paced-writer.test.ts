import { describe, expect, it } from "vitest";
import { PacedWriter } from "../../../src/reply/paced-writer.ts";
import { Pacer } from "../../../src/reply/pacer.ts";

/** A write that records when it ran and lets the test decide when it lands. */
function scriptedWrites() {
  const calls: { at: number; land: (next: "again" | "done") => void }[] = [];
  const waiters: (() => void)[] = [];
  const write = () =>
    new Promise<"again" | "done">((resolve) => {
      calls.push({ at: Date.now(), land: resolve });
      for (const waiter of waiters.splice(0)) waiter();
    });
  /** Resolves once `count` writes have started. */
  const started = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => (calls.length >= count ? resolve() : waiters.push(check));
      check();
    });
  return { calls, write, started };
}

describe("PacedWriter", () => {
  it("writes one at a time: a write asked for while one is under way waits for it and for the next slot", async () => {
    const pacer = new Pacer({ minIntervalMs: 40 });
    const { calls, write, started } = scriptedWrites();
    const writer = new PacedWriter({
      pacer,
      write: () => {
        pacer.used();
        return write();
      },
    });
    writer.schedule();
    writer.schedule(); // one is pending at most
    await started(1);
    writer.schedule();
    // The second cannot start before the first lands.
    const second = started(2);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(calls).toHaveLength(1);
    calls[0]!.land("done");
    await second;
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(39);
    calls[1]!.land("done");
    await writer.close();
    expect(calls).toHaveLength(2);
  });

  it("schedules itself again when a write says so, and never writes after close", async () => {
    const pacer = new Pacer({ minIntervalMs: 10 });
    const { calls, write, started } = scriptedWrites();
    const writer = new PacedWriter({ pacer, write });
    writer.schedule();
    await started(1);
    calls[0]!.land("again");
    await started(2);
    const closing = writer.close();
    calls[1]!.land("again");
    await closing;
    writer.schedule();
    expect(writer.isClosed).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it("waits for notBefore and for a wait Telegram asked for", async () => {
    const pacer = new Pacer({ minIntervalMs: 0 });
    const { calls, write, started } = scriptedWrites();
    const asked = Date.now();
    pacer.backOff(0.05);
    const writer = new PacedWriter({ pacer, write, notBefore: () => asked + 20 });
    writer.schedule();
    await started(1);
    expect(calls[0]!.at - asked).toBeGreaterThanOrEqual(49);
    calls[0]!.land("done");
    await writer.close();
  });

  it("goes on after a write that throws", async () => {
    const pacer = new Pacer({ minIntervalMs: 0 });
    let calls = 0;
    const writer = new PacedWriter({
      pacer,
      write: async () => {
        calls++;
        if (calls === 1) throw new Error("network");
        return "done";
      },
    });
    writer.schedule();
    await new Promise((resolve) => setTimeout(resolve, 5));
    writer.schedule();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await writer.close();
    expect(calls).toBe(2);
  });

  it("skips an update while the invocation's subrequests are low; the next change writes again", async () => {
    let low = true;
    const pacer = new Pacer({ minIntervalMs: 0, allowance: { allowsCourtesy: () => !low } });
    const { calls, write, started } = scriptedWrites();
    const writer = new PacedWriter({ pacer, write });
    writer.schedule();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toHaveLength(0);
    low = false;
    writer.schedule();
    await started(1);
    calls[0]!.land("done");
    await writer.close();
    expect(calls).toHaveLength(1);
  });
});
