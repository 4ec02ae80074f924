import { describe, expect, it } from "vitest";
import { type OpenRun, OpenRuns } from "../../../src/durable/open-runs.ts";

/**
 * Issue 40.3: the container's proxy reserves against a run's allowance before forwarding. The review's attack: calls
 * made at once were all admitted before any usage was recorded, past the run's allowance.
 */
function ledger(): OpenRuns {
  const runs = new Map<string, OpenRun>();
  return new OpenRuns({
    get: async (key) => runs.get(key),
    put: async (key, run) => void runs.set(key, run),
    delete: async (keys) => {
      for (const key of keys) runs.delete(key);
    },
    all: async () => new Map(runs),
  });
}

const ZERO = { calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe("security: the proxy holds a call's tokens before forwarding it", () => {
  it("8 calls at once against a 20,000-token allowance, each able to use 4,000: 5 are admitted", async () => {
    const runs = ledger();
    await runs.open("run", "claude-x", { maxTokens: 20_000 });
    const admitted = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        runs.admit("run", { id: `call-${index}`, inputTokens: 1_000, outputTokens: 3_000 }),
      ),
    );
    expect(admitted.filter((admission) => admission.kind === "admitted")).toHaveLength(5);
  });

  it("a call's usage replaces its hold; a call that reported nothing gives it back", async () => {
    const runs = ledger();
    await runs.open("run", "claude-x", { maxTokens: 10_000 });
    expect((await runs.admit("run", { id: "a", inputTokens: 1_000, outputTokens: 4_000 })).kind).toBe("admitted");
    expect((await runs.admit("run", { id: "b", inputTokens: 1_000, outputTokens: 4_000 })).kind).toBe("admitted");
    expect((await runs.admit("run", { id: "c", inputTokens: 1_000, outputTokens: 4_000 })).kind).toBe("over_budget");
    await runs.record("run", { ...ZERO, calls: 1, inputTokens: 1_000, outputTokens: 500 }, "a");
    await runs.record("run", ZERO, "b");
    expect((await runs.admit("run", { id: "d", inputTokens: 1_000, outputTokens: 4_000 })).kind).toBe("admitted");
    expect((await runs.close("run"))?.usage).toMatchObject({ inputTokens: 1_000, outputTokens: 500 });
  });
});
