import { describe, expect, it, vi } from "vitest";
import { SubrequestMeter } from "../../../src/lib/subrequest-meter.ts";

const FREE = { external: 50, services: 1_000, total: 50 };

/** A meter whose renewals are recorded, and delivered (as the object's next event) only when the test says so. */
function meterWith(limits = FREE) {
  const asked: (() => void)[] = [];
  const meter = new SubrequestMeter(limits, {
    renew: () =>
      new Promise<void>((resolve) => {
        asked.push(() => {
          meter.topUp();
          resolve();
        });
      }),
  });
  meter.topUp();
  return { meter, asked };
}

const spendMany = (meter: SubrequestMeter, pool: "external" | "services", count: number) => {
  for (let index = 0; index < count; index++) meter.spend(pool);
};

describe("SubrequestMeter", () => {
  it("counts what is left before the tightest limit, and starts again with each event", () => {
    const { meter } = meterWith({ external: 50, services: 1_000, total: 60 });
    spendMany(meter, "services", 20);
    expect(meter.left()).toBe(40);
    spendMany(meter, "external", 5);
    expect(meter.left()).toBe(35);
    meter.topUp();
    expect(meter.left()).toBe(50);
  });

  it("asks once for a fresh invocation when 12 are left, and again only after one came", async () => {
    const { meter, asked } = meterWith();
    spendMany(meter, "external", 37);
    expect(asked).toHaveLength(0);
    meter.spend("external");
    expect(asked).toHaveLength(1);
    // Calls under way while the renewal travels count, and ask for nothing more.
    spendMany(meter, "external", 3);
    expect(asked).toHaveLength(1);
    asked[0]!();
    expect(meter.left()).toBe(50);
    spendMany(meter, "external", 38);
    expect(asked).toHaveLength(2);
    expect(meter.renewals).toBe(2);
  });

  it("keeps what is left for the answer once no fresh invocation comes", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const meter = new SubrequestMeter(FREE, { renew: () => Promise.reject(new Error("object overloaded")) });
    meter.topUp();
    spendMany(meter, "external", 41);
    expect(meter.allowsCourtesy()).toBe(true);
    meter.spend("external");
    // 8 left: the answer's room; courtesies wait, essentials are still counted.
    expect(meter.allowsCourtesy()).toBe(false);
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining("object overloaded")));
    spendMany(meter, "external", 5);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it("remembers the most any one invocation spent", () => {
    const { meter, asked } = meterWith();
    spendMany(meter, "external", 30);
    spendMany(meter, "services", 9);
    meter.topUp();
    spendMany(meter, "external", 3);
    expect(meter.peak).toEqual({ external: 30, services: 9, total: 39 });
    expect(asked).toHaveLength(1);
  });

  it("never runs low on Paid in a turn's worth of calls", () => {
    const { meter, asked } = meterWith({ external: 10_000, services: 10_000, total: 10_000 });
    spendMany(meter, "external", 500);
    spendMany(meter, "services", 100);
    expect(asked).toHaveLength(0);
    expect(meter.allowsCourtesy()).toBe(true);
  });
});
