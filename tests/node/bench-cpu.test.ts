import { describe, expect, it } from "vitest";
import { type CpuProfile, cpuMsOf, samplingPeriodMicros } from "../../bench/cpu.ts";

const frame = (functionName: string, url = "worker.js") => ({ functionName, url, lineNumber: 1 });

/** root → (idle), (program), work → bench; samples given as node names with the time since the previous sample. */
function profileOf(samples: [name: "idle" | "program" | "work" | "bench", deltaMicros: number][]): CpuProfile {
  const ids = { idle: 2, program: 3, work: 4, bench: 5 } as const;
  return {
    nodes: [
      { id: 1, callFrame: frame("(root)", ""), children: [2, 3, 4] },
      { id: 2, callFrame: frame("(idle)", "") },
      { id: 3, callFrame: frame("(program)", "") },
      { id: 4, callFrame: frame("turn"), children: [5] },
      { id: 5, callFrame: frame("countingWrapper", "bench.js") },
    ],
    samples: samples.map(([name]) => ids[name]),
    timeDeltas: samples.map(([, delta]) => delta),
  };
}

describe("bench/cpu.ts", () => {
  it("takes the sampler's period from the median gap between samples, the first sample's delta left out", () => {
    const profile = profileOf([
      ["work", 90_000],
      ["work", 280],
      ["idle", 300],
      ["work", 260],
      ["work", 12_000],
    ]);
    expect(samplingPeriodMicros(profile)).toBe(300);
  });

  it("counts each running sample as one period, not the gap before it (time the isolate was off the thread)", () => {
    // Four samples of work at a 250 µs period, the third after 20 ms in which other isolates held the thread.
    const profile = profileOf([
      ["idle", 250],
      ["work", 250],
      ["work", 250],
      ["work", 20_000],
      ["work", 250],
      ["idle", 250],
    ]);
    expect(cpuMsOf(profile)).toBeCloseTo(1, 10);
  });

  it("leaves out idle and program samples, and those under a frame the caller leaves out", () => {
    const profile = profileOf([
      ["idle", 200],
      ["program", 200],
      ["work", 200],
      ["bench", 200],
    ]);
    expect(cpuMsOf(profile)).toBeCloseTo(0.4, 10);
    expect(cpuMsOf(profile, (called) => called.url === "bench.js")).toBeCloseTo(0.2, 10);
  });

  it("is zero for an empty profile", () => {
    expect(cpuMsOf(profileOf([]))).toBe(0);
  });
});
