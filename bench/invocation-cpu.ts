import { type CpuProfile, notRunningOurs } from "./cpu.ts";
import type { InvocationTally } from "./tally-snapshot.ts";

/**
 * CPU time per invocation, from the isolate's sampled profile. The local runtime does not account CPU per
 * invocation (its tail events carry `cpuTime: 0`), so each sample that is running code is given to the invocation
 * that was running at its time: one still in its handler before one past it (a Worker request resumes once the
 * object it called has answered), and among those the newest (an object's RPC call runs inside the request that
 * made it). Invocation times are the runtime's `Date.now()`, whole milliseconds, so each window's edges are
 * uncertain by about a millisecond; a sample in no window is counted apart (`outside`).
 *
 * Clocks: V8 stamps samples with the monotonic clock in microseconds (CLOCK_MONOTONIC, which Node's
 * `process.hrtime` reads too), the runtime's `Date.now()` is wall time: `wallToMonotonicMicros` is the offset
 * between the two, taken in the benchmark's process on the same machine.
 */
export interface InvocationCpu {
  byInvocation: Map<number, number>;
  /** Milliseconds of running samples outside every invocation's window (the runtime's own work, or a gap). */
  outsideMs: number;
}

export function cpuByInvocation(
  profile: CpuProfile,
  invocations: readonly InvocationTally[],
  wallToMonotonicMicros: number,
): InvocationCpu {
  const periodMs = activePeriodMicros(profile) / 1000;
  const idle = notRunningOurs(profile, isBenchmarkWork);
  const windows = invocations.map((invocation) => ({
    id: invocation.id,
    start: invocation.startedAt * 1000 + wallToMonotonicMicros,
    // A millisecond stamp covers the whole millisecond it names.
    handlerEnd:
      invocation.handlerEndedAt === null ? Infinity : (invocation.handlerEndedAt + 1) * 1000 + wallToMonotonicMicros,
    end: invocation.endedAt === null ? Infinity : (invocation.endedAt + 1) * 1000 + wallToMonotonicMicros,
  }));
  const byInvocation = new Map<number, number>();
  let outsideMs = 0;
  let at = profileStartMicros(profile);
  for (const [index, node] of profile.samples.entries()) {
    at += profile.timeDeltas[index] ?? 0;
    if (idle.has(node)) continue;
    let chosen: (typeof windows)[number] | undefined;
    for (const window of windows) {
      if (at < window.start || at >= window.end) continue;
      const inHandler = at < window.handlerEnd;
      const chosenInHandler = chosen !== undefined && at < chosen.handlerEnd;
      if (
        chosen === undefined ||
        (inHandler && !chosenInHandler) ||
        (inHandler === chosenInHandler && window.start >= chosen.start)
      )
        chosen = window;
    }
    if (chosen === undefined) outsideMs += periodMs;
    else byInvocation.set(chosen.id, (byInvocation.get(chosen.id) ?? 0) + periodMs);
  }
  return { byInvocation, outsideMs };
}

/** The counting wrapper's answers to the benchmark's polls, and the expressions it evaluates through the inspector. */
const INSTRUMENTATION = new Set(["busy", "snapshot", "invocations", "invocationsAfter", "settleCursors"]);

function isBenchmarkWork(frame: CpuProfile["nodes"][number]["callFrame"]): boolean {
  const evaluated = frame.url === "" && frame.lineNumber === 0 && frame.functionName === "";
  return evaluated || (frame.url.endsWith("counting-entry.js") && INSTRUMENTATION.has(frame.functionName));
}

/**
 * The sampler's period while the isolate runs: the median gap between samples shorter than 2 ms. V8 takes no sample
 * while the isolate is off the thread, so over a mostly idle case (a turn waiting on its model for a minute) most gaps
 * are waits, and the median of all gaps (what the cpu scenario, whose isolate is busy, uses) would be one of them.
 */
function activePeriodMicros(profile: CpuProfile): number {
  const gaps = profile.timeDeltas
    .slice(1)
    .filter((gap) => gap > 0 && gap < 2_000)
    .sort((left, right) => left - right);
  return gaps[Math.floor(gaps.length / 2)] ?? 0;
}

function profileStartMicros(profile: CpuProfile): number {
  return profile.startTime ?? 0;
}

/** The offset to add to wall-clock microseconds (Date.now() × 1000) for the monotonic clock V8 stamps samples with. */
export function wallToMonotonicMicros(): number {
  const monotonic = Number(process.hrtime.bigint() / 1000n);
  return monotonic - Date.now() * 1000;
}
