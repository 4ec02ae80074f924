import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ToolExecutor } from "../../../src/adapters/types.ts";
import { ActiveRun } from "../../../src/turn/active-run.ts";

describe("who may stop a run", () => {
  it("is whoever asked, or an admin; a run nobody in particular asked for, anyone", () => {
    const run = new ActiveRun([1001, 1002]);
    expect(run.mayBeStoppedBy(1002, false)).toBe(true);
    expect(run.mayBeStoppedBy(1003, false)).toBe(false);
    expect(run.mayBeStoppedBy(1003, true)).toBe(true);
    expect(run.mayBeStoppedBy(undefined, false)).toBe(false);
    expect(new ActiveRun([]).mayBeStoppedBy(1003, false)).toBe(true);
  });
});

describe("ActiveRun stop reasons", () => {
  it("starts running, with no reason", () => {
    const run = new ActiveRun([1001]);
    expect(run.signal.aborted).toBe(false);
    expect(run.stopReason).toBeUndefined();
    expect(run.askers).toEqual([1001]);
    expect(new ActiveRun().askers).toEqual([]);
  });

  it("aborts its signal, keeps the reason, and the first reason wins", () => {
    const stopped = new ActiveRun();
    stopped.stop("stopped");
    stopped.stop("deadline");
    expect(stopped.signal.aborted).toBe(true);
    expect(stopped.stopReason).toBe("stopped");
    // The signal carries the default reason: one of ours on a fetch's signal is logged by the runtime as uncaught.
    expect((stopped.signal.reason as DOMException).name).toBe("AbortError");

    const timedOut = new ActiveRun();
    timedOut.stop("deadline");
    timedOut.stop("stopped");
    expect(timedOut.stopReason).toBe("deadline");
  });

  it("tells listeners once", () => {
    const run = new ActiveRun();
    const listener = vi.fn();
    run.signal.addEventListener("abort", listener);
    run.stop("stopped");
    run.stop("stopped");
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("gives every run its own id", () => {
    expect(new ActiveRun().id).not.toBe(new ActiveRun().id);
  });
});

describe("ActiveRun.stopAfter (fake timers)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("stops the run with 'deadline' when the time is up, not before", () => {
    const run = new ActiveRun();
    run.stopAfter(5000);
    vi.advanceTimersByTime(4999);
    expect(run.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(run.stopReason).toBe("deadline");
  });

  it("waits at least a second", () => {
    for (const ms of [0, -5, 10]) {
      const run = new ActiveRun();
      run.stopAfter(ms);
      vi.advanceTimersByTime(999);
      expect(run.signal.aborted, `stopAfter(${ms})`).toBe(false);
      vi.advanceTimersByTime(1);
      expect(run.stopReason, `stopAfter(${ms})`).toBe("deadline");
    }
  });

  it("replaces an earlier deadline", () => {
    const run = new ActiveRun();
    run.stopAfter(5000);
    vi.advanceTimersByTime(3000);
    run.stopAfter(5000);
    vi.advanceTimersByTime(3000);
    expect(run.signal.aborted).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(run.stopReason).toBe("deadline");
  });

  it("keeps 'stopped' when the deadline passes after a stop", () => {
    const run = new ActiveRun();
    run.stopAfter(2000);
    run.stop("stopped");
    vi.advanceTimersByTime(5000);
    expect(run.stopReason).toBe("stopped");
  });

  it("is cancelled by end()", () => {
    const run = new ActiveRun();
    run.stopAfter(2000);
    run.end();
    vi.advanceTimersByTime(10_000);
    expect(run.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("ActiveRun.accepts", () => {
  it("accepts its own id only, and nothing once ended", () => {
    const run = new ActiveRun();
    const other = new ActiveRun();
    expect(run.accepts(run.id)).toBe(true);
    expect(run.accepts(other.id)).toBe(false);
    expect(run.accepts("")).toBe(false);
    expect(run.accepts(run.id.toUpperCase())).toBe(false);
    expect(run.accepts(` ${run.id}`)).toBe(false);
    run.end();
    expect(run.accepts(run.id)).toBe(false);
  });

  it("still accepts its id after a stop, until the turn ends", () => {
    const run = new ActiveRun();
    run.stop("stopped");
    expect(run.accepts(run.id)).toBe(true);
  });
});

describe("ActiveRun tools", () => {
  it("refuses tool calls before its tools are known", async () => {
    const outcome = await new ActiveRun().execute("web_fetch", "{}");
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("not ready");
  });

  it("routes execute to the tools it was given", async () => {
    const run = new ActiveRun();
    const first = vi.fn<ToolExecutor>(async (name, args) => ({ isError: false, content: `first ${name} ${args}` }));
    const second = vi.fn<ToolExecutor>(async () => ({ isError: false, content: "second" }));
    run.useTools(first);
    expect(await run.execute("memory", '{"key":"a"}')).toEqual({ isError: false, content: 'first memory {"key":"a"}' });
    expect(first).toHaveBeenCalledWith("memory", '{"key":"a"}');
    run.useTools(second);
    expect(await run.execute("memory", "{}")).toEqual({ isError: false, content: "second" });
    expect(first).toHaveBeenCalledTimes(1);
  });

  it("refuses tool calls once ended, without calling the tools", async () => {
    const run = new ActiveRun();
    const tools = vi.fn<ToolExecutor>(async () => ({ isError: false, content: "ran" }));
    run.useTools(tools);
    run.end();
    const outcome = await run.execute("send_message", "{}");
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("not ready");
    expect(tools).not.toHaveBeenCalled();
  });
});
