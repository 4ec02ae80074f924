import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DisplayClock } from "../../../src/reply/display-clock.ts";

describe("DisplayClock (fake timers)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs each at its time, earliest first, on one timer", () => {
    const clock = new DisplayClock();
    const ran: string[] = [];
    clock.after(3000, () => ran.push("stop button"));
    clock.after(250, () => ran.push("typing"));
    clock.after(1500, () => ran.push("👀"));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(249);
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(["typing"]);
    vi.advanceTimersByTime(1250);
    expect(ran).toEqual(["typing", "👀"]);
    vi.advanceTimersByTime(1500);
    expect(ran).toEqual(["typing", "👀", "stop button"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps the order asked for at equal times, and runs what a run asks for later", () => {
    const clock = new DisplayClock();
    const ran: string[] = [];
    clock.after(100, () => {
      ran.push("first");
      clock.after(100, () => ran.push("again"));
    });
    clock.after(100, () => ran.push("second"));
    vi.advanceTimersByTime(100);
    expect(ran).toEqual(["first", "second"]);
    vi.advanceTimersByTime(100);
    expect(ran).toEqual(["first", "second", "again"]);
  });

  it("runs the rest when one of them throws", () => {
    const clock = new DisplayClock();
    const ran: string[] = [];
    clock.after(100, () => {
      throw new Error("Telegram client gone");
    });
    clock.after(100, () => ran.push("same time"));
    clock.after(200, () => ran.push("later"));
    vi.advanceTimersByTime(200);
    expect(ran).toEqual(["same time", "later"]);
  });

  it("runs nothing once stopped, not even what is asked for after", () => {
    const clock = new DisplayClock();
    const ran: string[] = [];
    clock.after(100, () => {
      ran.push("first");
      clock.stop();
    });
    clock.after(100, () => ran.push("same time"));
    clock.after(200, () => ran.push("later"));
    vi.advanceTimersByTime(100);
    clock.after(10, () => ran.push("after the stop"));
    vi.advanceTimersByTime(1000);
    expect(ran).toEqual(["first"]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
