import { describe, expect, it } from "vitest";
import { CLOUDFLARE_PRICES, platformCostOf, platformLine } from "../../../src/budget/platform-cost.ts";

const none = { records: 0, summaries: 0, toolCalls: 0, durationMs: 0 };

describe("platformCostOf", () => {
  it("prices a plain turn as the benchmark's cost table does: about $0.020 per 1,000", () => {
    const perThousand = platformCostOf({ ...none, records: 1000 });
    expect(perThousand).toBeGreaterThan(0.018);
    expect(perThousand).toBeLessThan(0.022);
  });

  it("adds tool calls, summary passes and the object's busy time", () => {
    const plain = platformCostOf({ ...none, records: 1 });
    expect(platformCostOf({ ...none, records: 1, toolCalls: 3 })).toBeGreaterThan(plain);
    // A summary pass is a record but not a turn: it costs less than one.
    const summary = platformCostOf({ ...none, records: 1, summaries: 1 });
    expect(summary).toBeGreaterThan(0);
    expect(summary).toBeLessThan(plain);
    // A second of duration at 128 MB: 0.128 GB-s at $12.50 per million.
    const second = platformCostOf({ ...none, durationMs: 1000 });
    expect(second).toBeCloseTo(0.128 * 12.5e-6, 12);
    expect(platformCostOf(none)).toBe(0);
  });

  it("follows the price table it is given", () => {
    const free = { ...CLOUDFLARE_PRICES };
    for (const key of Object.keys(free) as (keyof typeof free)[]) free[key] = 0;
    expect(platformCostOf({ records: 10, summaries: 1, toolCalls: 4, durationMs: 9000 }, free)).toBe(0);
  });
});

describe("platformLine", () => {
  it("gives the estimate and its share beside the model's cost", () => {
    const line = platformLine({ records: 10, summaries: 0, toolCalls: 0, durationMs: 20_000, costUsd: 0.005 });
    expect(line).toMatch(/^\*\*Platform today \(estimated\):\*\* \$0\.00023 for 10 turns, 4 % of this chat's cost/);
    expect(line).toContain("(the model's: $0.0050)");
  });

  it("says when the model has no price, and counts summary passes out of the turns", () => {
    expect(platformLine({ records: 3, summaries: 1, toolCalls: 0, durationMs: 0, costUsd: 0 })).toMatch(
      /for 2 turns; the model's price is not configured$/,
    );
    expect(platformLine({ ...none, costUsd: 0 })).toBe(
      "**Platform today (estimated):** $0 for 0 turns; the model's price is not configured",
    );
  });
});
