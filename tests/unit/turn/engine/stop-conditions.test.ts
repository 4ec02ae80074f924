import { describe, expect, it } from "vitest";
import { PaidCalls } from "../../../../src/budget/paid-calls.ts";
import { BUDGET_RAN_OUT } from "../../../../src/protocol/events.ts";
import { budgetStop, sliceStop } from "../../../../src/turn/engine/stop-conditions.ts";
import { Tally } from "../../../../src/turn/tally.ts";

function meters() {
  const tally = new Tally({ provider: "openai", model: "m" }, () => undefined);
  const paid = new PaidCalls(
    { prices: {} as never, caps: {} as never, dailyCostUsd: undefined },
    { day: "2026-11-28", tokens: 0, costUsd: 0, noticeSent: false },
  );
  return { tally, paid };
}

describe("stop conditions", () => {
  it("the budget stop counts the day's spend and the turn's own tokens", () => {
    const { tally, paid } = meters();
    const spent = { day: "2026-11-28", tokens: 90, costUsd: 0, noticeSent: false };
    const stop = budgetStop({ spent: () => spent, tally, paid, budget: { dailyTokens: 100 } });
    expect(stop.reason()).toBeUndefined();
    tally.apply({ type: "usage", inputTokens: 8, outputTokens: 4 });
    expect(stop.reason()).toBe(BUDGET_RAN_OUT);
  });

  it("a helper's slice stop foresees the next call by the last one's size", () => {
    const { tally, paid } = meters();
    const stop = sliceStop({ tokens: 100, units: {} }, { tally, paid });
    const usage = { type: "usage", inputTokens: 30, outputTokens: 10 } as const;
    tally.apply(usage);
    stop.observe?.(usage);
    expect(stop.reason()).toBeUndefined();
    tally.apply(usage);
    stop.observe?.(usage);
    expect(stop.reason()).toBe("its share of today's token budget is used up");
    expect(stop.stopped).toBe("its share of today's token budget is used up");
  });
});
