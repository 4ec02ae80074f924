import { describe, expect, it } from "vitest";
import {
  CLOUDFLARE_PRICES,
  modelCost,
  platformCost,
  scaleUsage,
  storageCostPerMonth,
  subtractUsage,
  type Usage,
} from "../../bench/cost.ts";
import { COUNT_NAMES, zeroCounts } from "../../bench/tally-snapshot.ts";

const nothing = (): Usage => ({ ...zeroCounts(), cpuMs: 0 });
const line = (usage: Usage, item: string) => platformCost(usage).lines.find((entry) => entry.item === item)!;

describe("bench/cost.ts", () => {
  it("names every count it scales and subtracts", () => {
    expect([...COUNT_NAMES].sort()).toEqual(Object.keys(zeroCounts()).sort());
  });

  it("costs nothing for nothing", () => {
    const cost = platformCost(nothing());
    expect(cost.total).toBe(0);
    expect(cost.lines.every((entry) => entry.dollars === 0)).toBe(true);
  });

  it("prices each item at its published rate per million", () => {
    const million = (patch: Partial<Usage>) => ({ ...nothing(), ...patch });
    expect(line(million({ workerRequests: 1e6 }), "Worker requests").dollars).toBeCloseTo(0.3, 10);
    expect(line(million({ cpuMs: 1e6 }), "CPU ms").dollars).toBeCloseTo(0.02, 10);
    expect(line(million({ d1RowsWritten: 1e6 }), "D1 rows written").dollars).toBeCloseTo(1, 10);
    expect(line(million({ d1RowsRead: 1e6 }), "D1 rows read").dollars).toBeCloseTo(0.001, 10);
    expect(line(million({ kvReads: 1e6 }), "KV reads").dollars).toBeCloseTo(0.5, 10);
    expect(line(million({ kvWrites: 1e6 }), "KV writes").dollars).toBeCloseTo(5, 10);
    expect(line(million({ r2ClassA: 1e6 }), "R2 class A").dollars).toBeCloseTo(4.5, 10);
    expect(line(million({ r2ClassB: 1e6 }), "R2 class B").dollars).toBeCloseTo(0.36, 10);
  });

  it("bills alarms as Durable Object requests, and setAlarm and the key-value methods as SQLite rows", () => {
    const usage = { ...nothing(), doRequests: 2, alarms: 3, sqlRowsWritten: 10, alarmsSet: 2, storageKeysWritten: 1 };
    usage.sqlRowsRead = 7;
    usage.storageKeysRead = 3;
    expect(line(usage, "DO requests").quantity).toBe(5);
    expect(line(usage, "SQLite rows written").quantity).toBe(13);
    expect(line(usage, "SQLite rows read").quantity).toBe(10);
    // Deleted alarms and R2's free operations cost nothing.
    const free = { ...nothing(), alarmsDeleted: 100, r2Free: 100 };
    expect(platformCost(free).total).toBe(0);
  });

  it("turns active time into GB-s as the Durable Objects page does (1,000,000 s × 128 MB = 128,000 GB-s)", () => {
    const usage = { ...nothing(), doActiveMs: 1_000_000 * 1000 };
    const duration = line(usage, "DO GB-s");
    expect(duration.quantity).toBeCloseTo(128_000, 6);
    expect(duration.dollars).toBeCloseTo(1.6, 10);
  });

  it("adds the lines up, and takes another price table", () => {
    const usage = { ...nothing(), workerRequests: 1000, doRequests: 1000, sqlRowsWritten: 20_000 };
    const cost = platformCost(usage);
    expect(cost.total).toBeCloseTo(0.0003 + 0.00015 + 0.02, 10);
    const free = platformCost(usage, { ...CLOUDFLARE_PRICES, sqliteRowsWrittenPerMillion: 0 });
    expect(free.total).toBeCloseTo(0.00045, 10);
  });

  it("prices model tokens per million", () => {
    expect(modelCost({ input: 2_000, output: 250 }, { input: 0.15, output: 0.6 })).toBeCloseTo(0.00045, 10);
  });

  it("prices stored bytes per GB-month", () => {
    expect(storageCostPerMonth(5e9)).toBeCloseTo(1, 10);
  });

  it("scales and subtracts every item", () => {
    const usage = { ...nothing(), workerRequests: 3, sqlRowsRead: 30, cpuMs: 12 };
    const scaled = scaleUsage(usage, 1000 / 3);
    expect(scaled.workerRequests).toBeCloseTo(1000, 10);
    expect(scaled.sqlRowsRead).toBeCloseTo(10_000, 10);
    expect(scaled.cpuMs).toBeCloseTo(4000, 10);
    const difference = subtractUsage(usage, { ...nothing(), workerRequests: 1, cpuMs: 2 });
    expect(difference.workerRequests).toBe(2);
    expect(difference.sqlRowsRead).toBe(30);
    expect(difference.cpuMs).toBe(10);
  });
});
