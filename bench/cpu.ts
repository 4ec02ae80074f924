import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time of the Worker's isolate (the Worker and its Durable Objects run in one under `wrangler dev`), sampled
 * through the runtime's inspector: the sum of the samples that are not idle. That is the figure Cloudflare bills as
 * CPU time, give or take the sampling interval.
 */

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
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
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as {
    webSocketDebuggerUrl: string;
    title: string;
  }[];
  const target = targets.find((entry) => !entry.title.includes("ProxyWorker")) ?? targets[0]!;
  // wrangler's inspector proxy wants an Origin header, as DevTools sends one.
  const socket = new WebSocket(target.webSocketDebuggerUrl, {
    headers: { origin: "https://devtools.devprod.cloudflare.dev" },
  } as unknown as string[]);
  await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
  let nextId = 1;
  const pending = new Map<number, (value: unknown) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    // The proxy answers some commands by echoing them with their id; Profiler.stop comes back with its result.
    if (message.id && pending.has(message.id)) pending.get(message.id)!(message.result);
  });
  const send = (method: string, params: unknown = {}) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  return {
    async start() {
      await send("Profiler.start");
    },
    async stop() {
      const { profile } = (await send("Profiler.stop")) as { profile: CpuProfile };
      return { profile, cpuMs: cpuMsOf(profile) };
    },
    close() {
      socket.close();
    },
  };
}

/** Milliseconds of samples spent running code (its garbage collection included), not waiting. */
function cpuMsOf(profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((node) => NOT_CPU.has(node.callFrame.functionName)).map((node) => node.id));
  let micros = 0;
  for (const [index, node] of profile.samples.entries()) {
    if (!idle.has(node)) micros += profile.timeDeltas[index] ?? 0;
  }
  return micros / 1000;
}

/**
 * User and system CPU milliseconds used so far by the `workerd` processes of a process group, from `/proc`: the
 * runtime's whole cost (its HTTP, SQLite and dev proxy included), and unlike the sampled figure not inflated when other
 * processes compete for the cores. `undefined` where `/proc` is not there.
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
