import { describe, expect, it } from "vitest";
import { SharedRead } from "../../../src/lib/shared-read.ts";

/** A read that ends when the test says. */
function pending<V>() {
  let end: (value: V) => void = () => {};
  const read = new Promise<V>((resolve) => {
    end = resolve;
  });
  return { read, end: (value: V) => end(value) };
}

describe("SharedRead", () => {
  it("hands a second caller of the same key the read under way, and starts a new one for another key or once it ended", async () => {
    const reads = new SharedRead<number, string>();
    let started = 0;
    const first = pending<string>();
    const start = () => {
      started++;
      return first.read;
    };
    const a = reads.of(1, start);
    const b = reads.of(1, start);
    expect(b).toBe(a);
    expect(started).toBe(1);
    void reads.of(2, () => Promise.resolve("other"));
    first.end("one");
    expect(await a).toBe("one");
    await reads.of(1, () => {
      started++;
      return Promise.resolve("again");
    });
    expect(started).toBe(2);
  });

  it("tells the reader whether it is still current: not after a drop, and a drop shares it no more", async () => {
    const reads = new SharedRead<number, string>();
    const read = pending<string>();
    let current: boolean | undefined;
    const a = reads.of(1, (stillCurrent) =>
      read.read.then((value) => {
        current = stillCurrent();
        return value;
      }),
    );
    reads.drop();
    const b = reads.of(1, () => Promise.resolve("fresh"));
    expect(b).not.toBe(a);
    read.end("stale");
    expect(await a).toBe("stale");
    expect(current).toBe(false);
  });
});
