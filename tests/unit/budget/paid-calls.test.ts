import { describe, expect, it } from "vitest";
import { addUnits, PaidCalls, type PaidPolicy } from "../../../src/budget/paid-calls.ts";

const policy = (overrides: Partial<PaidPolicy> = {}): PaidPolicy => ({
  prices: { image: 0.04, search: 0.005, speech: 15 / 1_000_000, transcription: 0.003 / 60 },
  caps: { image: { perTurn: 2, perDay: 3 }, search: {}, speech: {}, transcription: { perDay: 600 } },
  dailyCostUsd: undefined,
  ...overrides,
});
const day = (units = {}, costUsd = 0) => ({ day: "2026-11-23", tokens: 0, costUsd, noticeSent: false, units });

describe("PaidCalls", () => {
  it("caps a kind per turn and per day, counting what the day already used", () => {
    const paid = new PaidCalls(policy(), day({ image: 2 }));
    expect(paid.refusal("image", 1)).toBeUndefined();
    paid.record("image", 1);
    expect(paid.refusal("image", 1)).toBe("This chat has used today's allowance of 3 images; it renews at midnight.");
    const fresh = new PaidCalls(policy(), day());
    fresh.record("image", 2);
    expect(fresh.refusal("image", 1)).toBe("One message may use at most 2 images in this chat.");
    expect(fresh.units).toEqual({ image: 2 });
    expect(fresh.costUsd).toBeCloseTo(0.08);
  });

  it("refuses what the day's budget does not cover, tokens of the turn included", () => {
    let tokens = 0;
    const paid = new PaidCalls(policy({ dailyCostUsd: 0.1 }), day({}, 0.05), () => tokens);
    expect(paid.refusal("image", 1)).toBeUndefined();
    tokens = 0.02;
    expect(paid.refusal("image", 1)).toBe("This chat's budget for today ($0.10) does not cover that.");
  });

  it("prices audio by the second and records a known cost as given", () => {
    const paid = new PaidCalls(policy(), day({ transcription: 590 }));
    expect(paid.refusal("transcription", 20)).toContain("10 minutes of audio");
    paid.record("search", 1, 0.01);
    expect(paid.costUsd).toBe(0.01);
  });

  it("adds a turn's units to the day's", () => {
    expect(addUnits(day({ image: 1 }), { image: 2, search: 1 }).units).toEqual({ image: 3, search: 1 });
  });
});
