import { describe, expect, it, vi } from "vitest";
import { ReplyTail } from "../../../src/turn/reply-tail.ts";

/** A delivery the test ends when it likes, noting when it started and ended. */
function delivery(
  name: string,
  log: string[],
): { run: () => Promise<void>; end: () => void; fail: (error: Error) => void } {
  let end = () => {};
  let fail: (error: Error) => void = () => {};
  return {
    run: () => {
      log.push(`${name} starts`);
      return new Promise<void>((resolve, reject) => {
        end = () => {
          log.push(`${name} ends`);
          resolve();
        };
        fail = reject;
      });
    },
    end: () => end(),
    fail: (error) => fail(error),
  };
}

describe("a chat's reply tail", () => {
  it("is settled and idle while nothing is handed over", async () => {
    const tail = new ReplyTail();
    expect(tail.busy).toBe(false);
    await expect(tail.settled).resolves.toBeUndefined();
  });

  it("runs deliveries one after another, in the order handed over; settled waits for those handed over before", async () => {
    const tail = new ReplyTail();
    const log: string[] = [];
    const first = delivery("first", log);
    const second = delivery("second", log);
    tail.hold(first.run);
    const beforeSecond = tail.settled.then(() => log.push("what came after the first may show"));
    tail.hold(second.run);
    const all = tail.settled.then(() => log.push("all delivered"));
    await vi.waitFor(() => expect(log).toEqual(["first starts"]));
    expect(tail.busy).toBe(true);

    first.end();
    await beforeSecond;
    await vi.waitFor(() => expect(log).toContain("second starts"));
    expect(log).toEqual(["first starts", "first ends", "what came after the first may show", "second starts"]);
    expect(tail.busy).toBe(true);

    second.end();
    await all;
    expect(log.slice(4)).toEqual(["second ends", "all delivered"]);
    expect(tail.busy).toBe(false);
  });

  it("logs a delivery that fails, settles anyway, and runs the next", async () => {
    const tail = new ReplyTail();
    const log: string[] = [];
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const failing = delivery("failing", log);
    const next = delivery("next", log);
    tail.hold(failing.run);
    tail.hold(next.run);
    await vi.waitFor(() => expect(log).toEqual(["failing starts"]));
    failing.fail(new Error("Telegram exploded"));
    await vi.waitFor(() => expect(log).toEqual(["failing starts", "next starts"]));
    next.end();
    await tail.settled;
    expect(tail.busy).toBe(false);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("Telegram exploded"));
    errors.mockRestore();
  });
});
