import { describe, expect, it } from "vitest";
import {
  addSpend,
  budgetLine,
  budgetNotice,
  costOf,
  exhaustedLimit,
  paidLine,
  spendOn,
} from "../../../src/budget/budget.ts";

const fresh = spendOn("2026-11-22", undefined);

describe("daily budget", () => {
  it("starts each day afresh and keeps today's spend", () => {
    const spent = addSpend(fresh, { inputTokens: 10, outputTokens: 5 }, 0.5);
    expect(spendOn("2026-11-22", spent)).toBe(spent);
    expect(spendOn("2026-11-23", { ...spent, noticeSent: true })).toEqual({
      day: "2026-11-23",
      tokens: 0,
      costUsd: 0,
      noticeSent: false,
    });
  });

  it("is exhausted at the token or the cost limit, whichever comes first; no limit never is", () => {
    const spent = addSpend(fresh, { inputTokens: 900, outputTokens: 100 }, 0.25);
    expect(exhaustedLimit(spent, {})).toBeUndefined();
    expect(exhaustedLimit(spent, { dailyTokens: 1001 })).toBeUndefined();
    expect(exhaustedLimit(spent, { dailyTokens: 1000 })).toBe("1,000 tokens");
    expect(exhaustedLimit(spent, { dailyTokens: 5000, dailyCostUsd: 0.25 })).toBe("$0.25");
    expect(exhaustedLimit(fresh, { dailyTokens: 0 })).toBe("0 tokens");
  });

  it("prices usage per million tokens, and free when the model has no price", () => {
    expect(costOf({ inputTokens: 2_000_000, outputTokens: 500_000 }, { input: 0.15, output: 0.6 })).toBeCloseTo(0.6);
    expect(costOf({ inputTokens: 2_000_000, outputTokens: 500_000 }, undefined)).toBe(0);
  });

  it("says what is left in /status, and nothing for a chat without limits", () => {
    const spent = addSpend(fresh, { inputTokens: 1200, outputTokens: 300 }, 0.4);
    expect(budgetLine(spent, {})).toBeUndefined();
    expect(budgetLine(spent, { dailyTokens: 10_000, dailyCostUsd: 1 })).toBe(
      "**Budget today:** 8,500 of 10,000 tokens left; $0.60 of $1.00 left",
    );
    expect(budgetLine(addSpend(spent, { inputTokens: 20_000, outputTokens: 0 }, 0), { dailyTokens: 10_000 })).toBe(
      "**Budget today:** 0 of 10,000 tokens left",
    );
  });

  it("tells the chat when it resumes", () => {
    expect(budgetNotice("$1.00", "Europe/Berlin", 5.4)).toContain("until midnight Europe/Berlin (in about 5 h)");
    expect(budgetNotice("$1.00", "UTC", 0.2)).toContain("in less than an hour");
  });

  it("shows paid calls against their caps: images and audio always, searches and speech once capped or used", () => {
    const none = { image: {}, search: {}, speech: {}, transcription: {} };
    expect(paidLine(fresh, none)).toBe("**Paid calls today:** Images 0 (no daily cap) · Audio 0 min (no daily cap)");
    const used = { ...fresh, units: { image: 2, transcription: 90, speech: 1200 } };
    const caps = { ...none, image: { perDay: 10, perTurn: 2 }, search: { perDay: 1000 } };
    expect(paidLine(used, caps)).toBe(
      "**Paid calls today:** Images 2 of 10, at most 2 per message · Searches 0 of 1,000 · " +
        "Spoken 1,200 characters (no daily cap) · Audio 1.5 min (no daily cap)",
    );
  });
});
