import { describe, expect, it } from "vitest";
import { dayKey } from "../../../src/config/zones.ts";

describe("dayKey", () => {
  it("turns at the zone's midnight, also right after an answer within the same minute's memo", () => {
    // 2026-11-23 18:15 UTC is 00:00 on the 24th in Kathmandu (UTC+05:45).
    const midnight = Date.UTC(2026, 10, 23, 18, 15);
    expect(dayKey(midnight - 30_000, "Asia/Kathmandu")).toBe("2026-11-23");
    expect(dayKey(midnight - 1, "Asia/Kathmandu")).toBe("2026-11-23");
    expect(dayKey(midnight, "Asia/Kathmandu")).toBe("2026-11-24");
    // The same instant in another zone is answered for that zone, not from the other's memo.
    expect(dayKey(midnight, "UTC")).toBe("2026-11-23");
    expect(dayKey(midnight + 59_999, "Asia/Kathmandu")).toBe("2026-11-24");
  });
});
