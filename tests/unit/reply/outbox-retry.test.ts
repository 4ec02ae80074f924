import { describe, expect, it } from "vitest";
import { nextTry, retryDelayMs } from "../../../src/reply/outbox-retry.ts";

const low = () => 0;
const high = () => 0.999_999;

describe("retryDelayMs", () => {
  it("doubles from 5 s with each failed try, up to 5 minutes", () => {
    // The fixed half of each wait (random 0): 2.5 s, 5 s, 10 s, 20 s…
    expect([1, 2, 3, 4, 5, 6, 7].map((attempts) => retryDelayMs(attempts, low))).toEqual([
      2_500, 5_000, 10_000, 20_000, 40_000, 80_000, 150_000,
    ]);
    expect(retryDelayMs(8, high)).toBe(300_000);
    expect(retryDelayMs(50, high)).toBe(300_000);
    expect(retryDelayMs(1_000, low)).toBe(150_000);
  });

  it("spreads each wait over its upper half, so that chats an outage hit do not return together", () => {
    const waits = new Set(Array.from({ length: 50 }, () => retryDelayMs(3)));
    expect(waits.size).toBeGreaterThan(10);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(10_000);
      expect(wait).toBeLessThanOrEqual(20_000);
    }
  });
});

describe("nextTry", () => {
  const now = 1_000_000;

  it("follows the backoff when Telegram gave no retry_after", () => {
    expect(nextTry({}, 1, now, low)).toEqual({ nextTryAt: now + 2_500 });
    expect(nextTry({}, 3, now, high)).toEqual({ nextTryAt: now + 20_000 });
  });

  it("holds to Telegram's retry_after, however few tries failed, with a second of spread after it", () => {
    expect(nextTry({ retryAfterSeconds: 30 }, 1, now, low)).toEqual({
      nextTryAt: now + 30_000,
      holdUntil: now + 30_000,
    });
    expect(nextTry({ retryAfterSeconds: 30 }, 9, now, high)).toEqual({
      nextTryAt: now + 31_000,
      holdUntil: now + 30_000,
    });
  });
});
