import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { connectInspector, type Inspector } from "./inspector.ts";

/**
 * CPU time of the Worker's isolate (the Worker and its Durable Objects run in one under `wrangler dev`), sampled
 * through the runtime's inspector: the samples that are not idle, each worth one sampling period. That is the figure
 * Cloudflare bills as CPU time, give or take the sampling period.
 */

export interface CpuProfile {
  /** When sampling began, in microseconds of the monotonic clock V8 stamps samples with. */
  startTime?: number;
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export interface Profiler {
  start(): Promise<void>;
  /** Stops sampling; the profile and the CPU time it holds, in milliseconds. */
  stop(): Promise<{ profile: CpuProfile; cpuMs: number }>;
  close(): void;
}

/**
 * Samples outside JavaScript: "(idle)", and "(program)", which is where V8 puts the time the runtime holds the
 * isolate without running code in it (its own I/O, waiting). Garbage collection counts as CPU.
 */
const NOT_CPU = new Set(["(idle)", "(program)"]);

export async function connectProfiler(inspectorPort: number): Promise<Profiler> {
  return profilerOn(await connectInspector(inspectorPort), true);
}

/** A profiler over an inspector session that is already open (closing it closes the session when it owns it). */
export async function profilerOn(inspector: Inspector, owned = false): Promise<Profiler> {
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 200 });
  return {
    async start() {
      await inspector.send("Profiler.start");
    },
    async stop() {
      const { profile } = (await inspector.send("Profiler.stop")) as { profile: CpuProfile };
      return { profile, cpuMs: cpuMsOf(profile) };
    },
    close() {
      if (owned) inspector.close();
    },
  };
}

/**
 * Milliseconds of samples spent running code (its garbage collection included), not waiting; without the samples
 * taken under a frame `leaveOut` picks (the benchmark's own code in the runtime, when it has some there).
 *
 * Each such sample counts one sampling period: the median gap between samples, which is what the sampler achieves
 * (about 280 µs here for the 200 µs asked). The gap before a sample is not its cost. V8 records a sample only while
 * this isolate is on the thread, and under `wrangler dev` every isolate (the dev proxy, the observability collector,
 * the local D1 and KV) shares one thread, so a gap also holds their time, the runtime's I/O and the time the thread
 * was not scheduled at all. Summing the gaps, as this did until 2026-11-24, charged each webhook request's first
 * sample with the whole wait since the previous turn: 36 ms per plain turn where the whole `workerd` process used 28.
 */
export function cpuMsOf(
  profile: CpuProfile,
  leaveOut?: (frame: CpuProfile["nodes"][number]["callFrame"]) => boolean,
): number {
  const notCounted = notRunningOurs(profile, leaveOut);
  const running = profile.samples.filter((node) => !notCounted.has(node)).length;
  return (running * samplingPeriodMicros(profile)) / 1000;
}

/** The profile's nodes whose samples are not code running for the bot: idle, or under a frame `leaveOut` picks. */
export function notRunningOurs(
  profile: CpuProfile,
  leaveOut?: (frame: CpuProfile["nodes"][number]["callFrame"]) => boolean,
): Set<number> {
  const excluded = new Set(
    profile.nodes.filter((node) => NOT_CPU.has(node.callFrame.functionName)).map((node) => node.id),
  );
  if (leaveOut) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const visit = (id: number, under: boolean) => {
      const node = byId.get(id);
      if (!node) return;
      const out = under || leaveOut(node.callFrame);
      if (out) excluded.add(id);
      for (const child of node.children ?? []) visit(child, out);
    };
    const children = new Set(profile.nodes.flatMap((node) => node.children ?? []));
    for (const node of profile.nodes) if (!children.has(node.id)) visit(node.id, false);
  }
  return excluded;
}

/** The sampler's achieved period: the median time between two samples (the first sample's delta left out). */
export function samplingPeriodMicros(profile: CpuProfile): number {
  const gaps = profile.timeDeltas.slice(1).sort((left, right) => left - right);
  return gaps.length === 0 ? 0 : gaps[Math.floor(gaps.length / 2)]!;
}

/**
 * User and system CPU milliseconds used so far by the `workerd` processes of a process group, from `/proc`: the
 * runtime's whole cost (its HTTP, SQLite commits, dev proxy, observability collector and inspector included), which a
 * deployed Worker is not billed for. `undefined` where `/proc` is not there.
 */
export function processCpuMs(processGroup: number): number | undefined {
  let ticks = 0;
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue;
      }
      // pid (comm) state ppid pgrp … utime stime: fields after the command's closing parenthesis.
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (name !== "workerd" || Number(fields[2]) !== processGroup) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    }
  } catch {
    return undefined;
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
