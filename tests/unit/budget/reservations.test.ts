import { describe, expect, it } from "vitest";
import { PaidCalls } from "../../../src/budget/paid-calls.ts";

const policy = {
  prices: { image: 0.04, search: 0.01, speech: 0, transcription: 0.006 / 60 },
  caps: { image: { perTurn: 4 }, search: {}, speech: {}, transcription: {} },
  dailyCostUsd: 1,
};

describe("paid calls reserve before they run", () => {
  it("holds count against the cap while in flight; a release frees them, a settle records them", () => {
    const paid = new PaidCalls(policy, { day: "2026-11-28", tokens: 0, costUsd: 0, noticeSent: false });
    const holds = Array.from({ length: 8 }, () => paid.reserve("image", 1));
    expect(holds.filter((hold) => "held" in hold)).toHaveLength(4);
    expect(holds[4]).toEqual({ refused: "One message may use at most 4 images in this chat." });
    const [first, second] = holds as { held: { settle(): void; release(): void } }[];
    first!.held.release();
    first!.held.settle(); // a hold ends once: no record after a release
    expect(paid.units.image ?? 0).toBe(0);
    expect("held" in paid.reserve("image", 1)).toBe(true);
    second!.held.settle();
    second!.held.settle();
    expect(paid.units.image).toBe(1);
    expect(paid.costUsd).toBeCloseTo(0.04);
  });

  it("holds dollars against the day's budget", () => {
    const paid = new PaidCalls(
      { ...policy, dailyCostUsd: 0.1 },
      { day: "2026-11-28", tokens: 0, costUsd: 0, noticeSent: false },
    );
    expect("held" in paid.reserve("search", 5)).toBe(true);
    expect("held" in paid.reserve("search", 5)).toBe(true);
    expect(paid.reserve("search", 1)).toEqual({ refused: "This chat's budget for today ($0.10) does not cover that." });
  });
});
