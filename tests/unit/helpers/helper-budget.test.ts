import { describe, expect, it } from "vitest";
import type { DailySpend } from "../../../src/budget/spend-slot.ts";
import type { PaidCap, PaidKind } from "../../../src/config/paid-kinds.ts";
import { helperSlice, helperStop, holdOf, released, withHold } from "../../../src/helpers/helper-budget.ts";

const NO_CAPS: Record<PaidKind, PaidCap> = { image: {}, search: {}, speech: {}, transcription: {} };
const CAPS: Record<PaidKind, PaidCap> = { ...NO_CAPS, image: { perTurn: 4, perDay: 20 }, search: { perTurn: 5 } };
const DAY = "2026-11-23";
const fresh: DailySpend = { day: DAY, tokens: 0, costUsd: 0, noticeSent: false };

describe("a helper's slice", () => {
  it("is a share of what is left of each limit the chat has, and nothing of those it has not", () => {
    const granted = helperSlice({
      budget: { dailyTokens: 100_000, dailyCostUsd: 2 },
      caps: CAPS,
      spent: { tokens: 20_000, costUsd: 0.5, units: { image: 10 } },
      share: 0.5,
    });
    expect(granted).toEqual({
      kind: "granted",
      // Images: half of the 10 left today, within the 4 one turn may make; searches: one turn's 5.
      slice: { tokens: 40_000, costUsd: 0.75, units: { image: 4, search: 5 } },
    });
    expect(helperSlice({ budget: {}, caps: NO_CAPS, spent: { tokens: 0, costUsd: 0, units: {} }, share: 1 })).toEqual({
      kind: "granted",
      slice: { units: {} },
    });
  });

  it("is refused when too little is left", () => {
    const refused = helperSlice({
      budget: { dailyTokens: 10_000 },
      caps: NO_CAPS,
      spent: { tokens: 7_000, costUsd: 0, units: {} },
      share: 0.5,
    });
    expect(refused).toEqual({ kind: "refused", reason: "today's token budget has too little left" });
  });

  it("held in the day's spend, leaves the next helper a share of what is left after it: never more than the chat has", () => {
    let spend = fresh;
    let given = 0;
    for (let helper = 0; helper < 6; helper++) {
      const granted = helperSlice({
        budget: { dailyTokens: 50_000 },
        caps: CAPS,
        spent: { tokens: spend.tokens, costUsd: spend.costUsd, units: spend.units ?? {} },
        share: 0.5,
      });
      if (granted.kind === "refused") break;
      given += granted.slice.tokens!;
      spend = withHold(spend, holdOf(DAY, granted.slice, CAPS));
    }
    expect(given).toBeLessThanOrEqual(50_000);
    expect(spend.tokens).toBe(given);
    // Only the capped-per-day kind is held.
    expect(spend.units).toEqual({ image: expect.any(Number) });
  });

  it("is given back for what the helper used, on the day it was taken from", () => {
    const hold = holdOf(DAY, { tokens: 4_000, costUsd: 0.2, units: { image: 3 } }, CAPS);
    const held = withHold({ ...fresh, tokens: 1_000, costUsd: 0.1 }, hold);
    expect(held).toMatchObject({ tokens: 5_000, costUsd: 0.30000000000000004, units: { image: 3 } });
    const after = released(held, hold, { tokens: 1_500, costUsd: 0.05, units: { image: 1 } });
    expect(after.tokens).toBe(2_500);
    expect(after.costUsd).toBeCloseTo(0.15);
    expect(after.units).toEqual({ image: 1 });
    // A hold from yesterday is not in today's spend: only the use is added.
    const today = released({ ...fresh, day: "2026-11-24", tokens: 10 }, hold, { tokens: 5, costUsd: 0, units: {} });
    expect(today.tokens).toBe(15);
  });

  it("stops a helper before a call that, like its last, would pass the slice", () => {
    const slice = { tokens: 5_000, units: {} };
    expect(helperStop(slice, { tokens: 2_000, costUsd: 0 }, { tokens: 2_000, costUsd: 0 })).toBeUndefined();
    expect(helperStop(slice, { tokens: 4_000, costUsd: 0 }, { tokens: 2_000, costUsd: 0 })).toBe(
      "its share of today's token budget is used up",
    );
    expect(helperStop({ costUsd: 0.1, units: {} }, { tokens: 0, costUsd: 0.08 }, { tokens: 0, costUsd: 0.03 })).toBe(
      "its share of today's budget is used up",
    );
  });
});
