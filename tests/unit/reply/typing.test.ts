import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DisplayClock } from "../../../src/reply/display-clock.ts";
import { TYPING_AFTER_MS, Typing } from "../../../src/reply/typing.ts";

const target = { chatId: 42 };

/** A Telegram that records typing actions and lands each when the test says. */
function scriptedTelegram() {
  const sent: { land: () => void }[] = [];
  return {
    sent,
    sendTyping: () =>
      new Promise<void>((resolve) => {
        sent.push({ land: resolve });
      }),
  };
}

describe("Typing (fake timers)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends nothing for an answer that comes within TYPING_AFTER_MS", async () => {
    const telegram = scriptedTelegram();
    const clock = new DisplayClock();
    const typing = new Typing({ telegram, target, clock });
    vi.advanceTimersByTime(TYPING_AFTER_MS - 1);
    clock.stop();
    await typing.landed();
    vi.advanceTimersByTime(10_000);
    expect(telegram.sent).toHaveLength(0);
  });

  it("starts once the answer keeps someone waiting, renews every 4.5 s, and lands before the answer goes", async () => {
    const telegram = scriptedTelegram();
    const clock = new DisplayClock();
    const typing = new Typing({ telegram, target, clock });
    vi.advanceTimersByTime(TYPING_AFTER_MS);
    expect(telegram.sent).toHaveLength(1);
    vi.advanceTimersByTime(4499);
    expect(telegram.sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(telegram.sent).toHaveLength(2);
    clock.stop();
    let landed = false;
    const waiting = typing.landed().then(() => {
      landed = true;
    });
    await Promise.resolve();
    expect(landed).toBe(false);
    telegram.sent[1]!.land();
    await waiting;
    expect(landed).toBe(true);
    vi.advanceTimersByTime(10_000);
    expect(telegram.sent).toHaveLength(2);
  });

  it("skips a renewal while the invocation's subrequests are low, and sends the next once they are not", () => {
    const telegram = scriptedTelegram();
    const clock = new DisplayClock();
    let low = false;
    new Typing({ telegram, target, clock, allowance: { allowsCourtesy: () => !low } });
    vi.advanceTimersByTime(TYPING_AFTER_MS);
    expect(telegram.sent).toHaveLength(1);
    low = true;
    vi.advanceTimersByTime(4500);
    expect(telegram.sent).toHaveLength(1);
    low = false;
    vi.advanceTimersByTime(4500);
    expect(telegram.sent).toHaveLength(2);
    clock.stop();
  });

  it("after an attempt that started over, waits for the renewal of the typing it sent (still shown) and says when it sent", () => {
    const telegram = scriptedTelegram();
    const clock = new DisplayClock();
    const shownAt = Date.now() - 1000;
    const typing = new Typing({ telegram, target, clock, shownAt });
    expect(typing.lastSentAt).toBe(shownAt);
    vi.advanceTimersByTime(3499);
    expect(telegram.sent).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(telegram.sent).toHaveLength(1);
    expect(typing.lastSentAt).toBe(Date.now());
    clock.stop();
  });

  it("after an attempt whose typing has expired, sends once the answer keeps someone waiting, as a first attempt", () => {
    const telegram = scriptedTelegram();
    const clock = new DisplayClock();
    new Typing({ telegram, target, clock, shownAt: Date.now() - 10_000 });
    vi.advanceTimersByTime(TYPING_AFTER_MS - 1);
    expect(telegram.sent).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(telegram.sent).toHaveLength(1);
    clock.stop();
  });
});
