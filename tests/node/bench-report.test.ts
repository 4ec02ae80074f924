import { describe, expect, it } from "vitest";
import { medianRun } from "../../bench/report.ts";
import type { ScenarioResult } from "../../bench/scenarios.ts";

const latency = (p50: number, p99: number) => ({ p50, p95: p99, p99, max: p99, count: 100 });

const ack = (p50: number, ratio: number): ScenarioResult => ({
  name: "ack (saturated)",
  description: "",
  latency: latency(p50, 100 * ratio),
  figures: { "health p99": 100, "ack p99 / health p99": ratio },
  checks: [{ name: "ack p99 ≤ 1.1 × /health p99", ok: ratio <= 1.1, value: `${ratio}×` }],
  integrity: true,
});

const conversation = (p50: number, integrity = true): ScenarioResult => ({
  name: "conversation",
  description: "",
  latency: latency(p50, 2 * p50),
  figures: {},
  checks: [],
  integrity,
});

describe("bench/report.ts medianRun", () => {
  it("takes an ack scenario from the run whose ratio to /health is the median, not whose p50 is", () => {
    // The run with the median p50 (230) carries the highest ratio of the three.
    const chosen = medianRun([[ack(230, 1.26)], [ack(200, 1.02)], [ack(260, 0.81)]]);
    expect(chosen[0]!.figures["ack p99 / health p99"]).toBe(1.02);
    expect(chosen[0]!.checks[0]!.ok).toBe(true);
  });

  it("takes a latency scenario from the run with the median p50, and keeps integrity only when every run kept it", () => {
    const chosen = medianRun([[conversation(62)], [conversation(50, false)], [conversation(55)]]);
    expect(chosen[0]!.latency!.p50).toBe(55);
    expect(chosen[0]!.integrity).toBe(false);
  });
});
