import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { meteredEnv, meterInvocations } from "../../../src/durable/metered-invocations.ts";
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

describe("meteredEnv", () => {
  it("spends one services subrequest per call that goes to the service, none for what answers at once", async () => {
    const counted = meter();
    const db = new FakeD1();
    const env = meteredEnv({ DB: db, BOT_NAME: "Testbot" }, counted);
    expect(env.BOT_NAME).toBe("Testbot");
    const statement = env.DB.prepare("SELECT 1").bind(1);
    expect(counted.left()).toBe(50);
    expect(await statement.first()).toEqual({ one: 1 });
    expect(counted.left()).toBe(49);
    // The service gets its own statements back, not the counting proxies.
    await env.DB.batch([env.DB.prepare("SELECT 2"), env.DB.prepare("SELECT 3")]);
    expect(counted.left()).toBe(48);
    expect(db.batches[0]!.every((item) => item instanceof FakeStatement)).toBe(true);
    expect(counted.peak.services).toBe(2);
  });
});

describe("meteredEnv over the real bindings", () => {
  it("counts a call through a Durable Object's stub once, and none for its id or stub", async () => {
    const counted = meter();
    const bindings = meteredEnv(env, counted);
    const stub = bindings.CHAT_SESSION.get(bindings.CHAT_SESSION.idFromName("chat:77"));
    expect(counted.peak.services).toBe(0);
    expect(await stub.outboxState()).toMatchObject({ waiting: 0 });
    expect(await bindings.CONFIG.get("nothing")).toBeNull();
    expect(counted.peak.services).toBe(2);
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
