import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countBindings, meterInvocations } from "../../../src/durable/metered-invocations.ts";
import { SubrequestMeter } from "../../../src/lib/subrequest-meter.ts";

const LIMITS = { external: 50, services: 1_000, total: 50 };

function meter(): SubrequestMeter {
  const made = new SubrequestMeter(LIMITS, { renew: async () => undefined });
  made.topUp();
  return made;
}

/** A stand-in for D1: `prepare` and `bind` answer at once (no request), `first` and `batch` go to the service. */
class FakeD1 {
  readonly batches: unknown[][] = [];
  prepare(query: string) {
    return new FakeStatement(query);
  }
  async batch(statements: unknown[]) {
    this.batches.push(statements);
    return statements.map(() => ({ results: [] }));
  }
}

class FakeStatement {
  constructor(readonly query: string) {}
  bind(..._values: unknown[]) {
    return this;
  }
  async first() {
    return { one: 1 };
  }
}

/** An object of its own, as a chat's object is: `work` runs with its meter. */
class AnObject {
  readonly subrequests = meter();
  async work<T>(task: () => Promise<T>): Promise<T> {
    return task();
  }
}
meterInvocations(AnObject.prototype);

describe("countBindings", () => {
  it("spends one services subrequest per call that goes to the service, none for what answers at once", async () => {
    const db = new FakeD1();
    countBindings({ DB: db, BOT_NAME: "Testbot" });
    const object = new AnObject();
    const left = await object.work(async () => {
      const statement = db.prepare("SELECT 1").bind(1);
      const before = object.subrequests.left();
      expect(await statement.first()).toEqual({ one: 1 });
      await db.batch([db.prepare("SELECT 2"), db.prepare("SELECT 3")]);
      return [before, object.subrequests.left()];
    });
    expect(left).toEqual([50, 48]);
    // The service gets its own statements, unchanged.
    expect(db.batches[0]!.every((item) => item instanceof FakeStatement)).toBe(true);
  });

  it("counts nothing for code outside an object (a Worker's request)", async () => {
    const db = new FakeD1();
    countBindings({ DB: db });
    const object = new AnObject();
    await db.prepare("SELECT 1").first();
    expect(object.subrequests.peak.services).toBe(0);
  });
});

describe("countBindings over the real bindings", () => {
  it("counts a call through a Durable Object's stub and a KV read, and none for an id or a stub", async () => {
    countBindings(env);
    const object = new AnObject();
    const spent = await object.work(async () => {
      const stub = env.CHAT_SESSION.get(env.CHAT_SESSION.idFromName("chat:77"));
      const before = object.subrequests.peak.services;
      expect(await stub.outboxState()).toMatchObject({ waiting: 0 });
      expect(await env.CONFIG.get("nothing")).toBeNull();
      return [before, object.subrequests.peak.services];
    });
    expect(spent).toEqual([0, 2]);
  });
});

describe("meterInvocations", () => {
  class Counted {
    readonly subrequests = meter();
    readonly calls: string[] = [];
    async incoming(): Promise<number> {
      this.calls.push("incoming");
      // The object's own calls are not events: they run in the invocation under way.
      await this.own();
      return this.subrequests.peak.external;
    }
    async own(): Promise<void> {
      this.calls.push("own");
      await (await fetch(`${env.FAKES_URL}/web/nothing-here`)).arrayBuffer();
    }
  }
  meterInvocations(Counted.prototype);

  it("tops the meter up for each call from outside, and charges the object's fetches to it", async () => {
    const object = new Counted();
    object.subrequests.spend("external");
    expect(await object.incoming()).toBe(1);
    expect(object.subrequests.left()).toBe(49);
    await object.incoming();
    // A second event: the count started again, and the first invocation's 1 is still the peak.
    expect(object.subrequests.left()).toBe(49);
    expect(object.calls).toEqual(["incoming", "own", "incoming", "own"]);
  });
});
