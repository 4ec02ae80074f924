import { Cron } from "croner";
import { describe, expect, it } from "vitest";
import { CronSyntaxError, nextRuns, parseCron } from "../../../src/tasks/cron.ts";

const EXPRESSIONS = [
  "0 9 * * 1-5",
  "30 8 * * MON",
  "*/15 6-18 * * *",
  "0 0 1,15 * *",
  "0 12 13 * 5",
  "0 7 * JAN-MAR SUN",
  "5 4 * * 7",
  "0 0 29 2 *",
  "15 2 * * *",
  "30 2 * * *",
  "0 */6 * * ?",
  "30 0 9 * * *",
  "@weekly",
  "@monthly",
  "0 9-17/4 * * 1,3",
];
const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"];
const FROM = [Date.UTC(2026, 0, 15, 6), Date.UTC(2026, 2, 28, 12), Date.UTC(2026, 9, 24, 22), Date.UTC(2027, 1, 27)];

describe("cron", () => {
  it.each(EXPRESSIONS)("finds the runs croner finds: %s", (expression) => {
    for (const zone of ZONES) {
      for (const from of FROM) {
        const cron = new Cron(expression, { timezone: zone, paused: true });
        const expected = cron.nextRuns(4, new Date(from)).map((date) => date.getTime());
        cron.stop();
        expect(nextRuns(parseCron(expression), zone, from, 4), `${zone} from ${new Date(from).toISOString()}`).toEqual(
          expected,
        );
      }
    }
  });

  it.each(["not cron", "61 * * * *", "* * *", "0 25 * * *", "0 0 0 * *", "0 0 * 13 *", "5-1 * * * *", "*/0 * * * *"])(
    "refuses %s, saying why",
    (expression) => {
      expect(() => parseCron(expression)).toThrow(CronSyntaxError);
    },
  );

  it("stops looking for a day that never comes", () => {
    expect(nextRuns(parseCron("0 0 30 2 *"), "UTC", Date.UTC(2026, 0, 1), 1)).toEqual([]);
  });
});
