import { describe, expect, it } from "vitest";
import {
  formatInZone,
  MIN_CRON_INTERVAL_MS,
  nextCronRun,
  parseAt,
  ScheduleError,
} from "../../../src/tasks/schedule-time.ts";

const utc = (text: string) => Date.parse(text);

describe("parseAt with an offset", () => {
  it.each([
    ["2026-05-01T09:00:00+02:00", "2026-05-01T07:00:00.000Z"],
    ["2026-05-01T09:00:00Z", "2026-05-01T09:00:00.000Z"],
    ["2026-05-01T09:00-05:00", "2026-05-01T14:00:00.000Z"],
    ["2026-05-01T09:00:00+0530", "2026-05-01T03:30:00.000Z"],
    ["2026-05-01 09:00+02:00", "2026-05-01T07:00:00.000Z"],
    ["2026-05-01t09:00z", "2026-05-01T09:00:00.000Z"],
    ["2026-05-01T09:00:30.250Z", "2026-05-01T09:00:30.250Z"],
    ["  2026-05-01T09:00Z  ", "2026-05-01T09:00:00.000Z"],
  ])("%s is exact, whatever the zone", (text, expected) => {
    expect(parseAt(text, "Europe/Berlin")).toBe(utc(expected));
    expect(parseAt(text, "America/New_York")).toBe(utc(expected));
  });
});

describe("parseAt without an offset: wall time in the zone", () => {
  it.each([
    ["UTC", "2026-05-01T09:00", "2026-05-01T09:00:00Z"],
    ["Europe/Berlin", "2026-01-15T09:00", "2026-01-15T08:00:00Z"],
    ["Europe/Berlin", "2026-07-15T09:00:00", "2026-07-15T07:00:00Z"],
    ["America/New_York", "2026-01-15T09:00", "2026-01-15T14:00:00Z"],
    ["Asia/Kolkata", "2026-01-15 09:00", "2026-01-15T03:30:00Z"],
    ["Pacific/Auckland", "2026-01-01T00:30", "2025-12-31T11:30:00Z"],
  ])("in %s, %s", (zone, text, expected) => {
    expect(parseAt(text, zone)).toBe(utc(expected));
  });

  it("follows Berlin's clocks across the spring change (29 March 2026, 02:00 CET → 03:00 CEST)", () => {
    expect(parseAt("2026-03-28T09:00", "Europe/Berlin")).toBe(utc("2026-03-28T08:00:00Z"));
    expect(parseAt("2026-03-29T01:30", "Europe/Berlin")).toBe(utc("2026-03-29T00:30:00Z"));
    expect(parseAt("2026-03-29T03:30", "Europe/Berlin")).toBe(utc("2026-03-29T01:30:00Z"));
    expect(parseAt("2026-03-29T09:00", "Europe/Berlin")).toBe(utc("2026-03-29T07:00:00Z"));
    // 02:30 does not exist that night: it is read as the instant an hour later, 03:30 CEST.
    expect(parseAt("2026-03-29T02:30", "Europe/Berlin")).toBe(utc("2026-03-29T01:30:00Z"));
  });

  it("follows Berlin's clocks across the autumn change (25 October 2026, 03:00 CEST → 02:00 CET)", () => {
    expect(parseAt("2026-10-25T01:30", "Europe/Berlin")).toBe(utc("2026-10-24T23:30:00Z"));
    expect(parseAt("2026-10-25T09:00", "Europe/Berlin")).toBe(utc("2026-10-25T08:00:00Z"));
    // 02:30 happens twice; either instant shows 02:30 on a Berlin clock.
    const ambiguous = parseAt("2026-10-25T02:30", "Europe/Berlin");
    expect([utc("2026-10-25T00:30:00Z"), utc("2026-10-25T01:30:00Z")]).toContain(ambiguous);
    expect(formatInZone(ambiguous, "Europe/Berlin")).toContain("02:30");
  });

  it("round-trips through formatInZone", () => {
    for (const zone of ["Europe/Berlin", "America/Los_Angeles", "Australia/Sydney", "UTC"]) {
      expect(formatInZone(parseAt("2026-11-22T18:45", zone), zone)).toBe("Sun, 22 Nov 2026, 18:45");
    }
  });
});

describe("parseAt refuses", () => {
  it.each([
    "2026-02-30T09:00",
    "2026-02-30T09:00:00Z",
    "2025-02-29T09:00",
    "2026-04-31T09:00",
    "2026-13-01T09:00",
    "2026-00-10T09:00",
    "2026-05-01T24:00",
    "2026-05-01T09:60",
    "2026-05-01T09:00:60",
  ])("an impossible date or time: %s", (text) => {
    expect(() => parseAt(text, "Europe/Berlin")).toThrow(ScheduleError);
    expect(() => parseAt(text, "Europe/Berlin")).toThrow("is not a valid date and time");
  });

  it("accepts 29 February in a leap year", () => {
    expect(parseAt("2028-02-29T09:00", "UTC")).toBe(utc("2028-02-29T09:00:00Z"));
  });

  it.each([
    "",
    "tomorrow at 9",
    "2026-05-01",
    "09:00",
    "2026-5-1T09:00",
    "2026-05-01T9:00",
    "2026-05-01T09:00+2",
    "2026-05-01T09:00 Europe/Berlin",
    "1777626000000",
    "2026-05-01T09:00:00+02:00extra",
  ])("a malformed string: %j", (text) => {
    expect(() => parseAt(text, "UTC")).toThrow(ScheduleError);
    expect(() => parseAt(text, "UTC")).toThrow("is not an ISO-8601 date and time");
  });
});

describe("nextCronRun", () => {
  const january = utc("2026-01-15T06:00:00Z");
  const july = utc("2026-07-15T06:00:00Z");

  it("is the first run after the given time, strictly after", () => {
    expect(nextCronRun("0 9 * * *", "UTC", january)).toBe(utc("2026-01-15T09:00:00Z"));
    expect(nextCronRun("0 9 * * *", "UTC", utc("2026-01-15T09:00:00Z"))).toBe(utc("2026-01-16T09:00:00Z"));
    expect(nextCronRun("30 8 * * 1", "UTC", january)).toBe(utc("2026-01-19T08:30:00Z"));
  });

  it("reads the expression in the time zone, summer and winter", () => {
    expect(nextCronRun("0 9 * * *", "Europe/Berlin", january)).toBe(utc("2026-01-15T08:00:00Z"));
    expect(nextCronRun("0 9 * * *", "Europe/Berlin", july)).toBe(utc("2026-07-15T07:00:00Z"));
    expect(nextCronRun("0 9 * * *", "America/New_York", january)).toBe(utc("2026-01-15T14:00:00Z"));
  });

  it("keeps the wall time across a DST change", () => {
    const beforeSpring = utc("2026-03-28T12:00:00Z");
    expect(nextCronRun("0 9 * * *", "Europe/Berlin", beforeSpring)).toBe(utc("2026-03-29T07:00:00Z"));
  });

  it("allows every 5 minutes, the minimum", () => {
    expect(MIN_CRON_INTERVAL_MS).toBe(5 * 60 * 1000);
    expect(nextCronRun("*/5 * * * *", "UTC", utc("2026-01-15T06:01:00Z"))).toBe(utc("2026-01-15T06:05:00Z"));
    expect(nextCronRun("0 * * * *", "Europe/Berlin", january)).toBe(utc("2026-01-15T07:00:00Z"));
  });

  it.each(["* * * * *", "*/4 * * * *", "0,2 9 * * *", "*/10 * * * * *", "0-59/3 * * * *"])(
    "refuses %s: it runs more often than every 5 minutes",
    (expression) => {
      expect(() => nextCronRun(expression, "UTC", january)).toThrow(ScheduleError);
      expect(() => nextCronRun(expression, "UTC", january)).toThrow("runs more often than every 5 minutes");
    },
  );

  it.each(["not cron", "61 * * * *", "* * *", "0 25 * * *"])("refuses an invalid expression: %s", (expression) => {
    expect(() => nextCronRun(expression, "UTC", january)).toThrow(ScheduleError);
    expect(() => nextCronRun(expression, "UTC", january)).toThrow("is not a valid cron expression");
  });

  it("refuses an expression that never runs", () => {
    expect(() => nextCronRun("0 0 30 2 *", "UTC", january)).toThrow("never runs again");
  });
});

describe("formatInZone", () => {
  it("writes the weekday, date and 24-hour time in the zone", () => {
    const instant = utc("2026-05-01T07:00:00Z");
    expect(formatInZone(instant, "UTC")).toBe("Fri, 1 May 2026, 07:00");
    expect(formatInZone(instant, "Europe/Berlin")).toBe("Fri, 1 May 2026, 09:00");
    expect(formatInZone(instant, "America/Los_Angeles")).toBe("Fri, 1 May 2026, 00:00");
    expect(formatInZone(instant, "Pacific/Honolulu")).toBe("Thu, 30 Apr 2026, 21:00");
  });
});
