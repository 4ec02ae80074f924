import { describe, expect, it } from "vitest";
import { CUT_MARK, cappedTools } from "../../../../src/turn/engine/capped-tools.ts";
import type { TurnPolicy } from "../../../../src/turn/engine/turn-policy.ts";

function policy(overrides: Partial<TurnPolicy> = {}): TurnPolicy {
  return {
    kind: "chat",
    offers: () => true,
    actor: "this turn",
    instructions: [],
    stream: false,
    stopWhen: [],
    resultCap: 10,
    ...overrides,
  };
}

const echo = async (_name: string, argumentsText: string) => ({ isError: false, content: argumentsText });

describe("cappedTools", () => {
  it("cuts a result past the turn's cap with the one mark, for a helper as for a chat", async () => {
    for (const kind of ["chat", "helper"] as const) {
      const execute = cappedTools(policy({ kind }), echo);
      expect(await execute("t", "12345")).toEqual({ isError: false, content: "12345" });
      expect(await execute("t", "abcdefgh")).toEqual({ isError: false, content: `abcde${CUT_MARK}` });
      const after = await execute("t", "x");
      expect(after.isError).toBe(true);
      expect(after.content).toContain("already read 10 characters");
    }
  });

  it("refuses a tool the policy does not offer, without running it", async () => {
    let ran = false;
    const execute = cappedTools(
      policy({ offers: (name) => name !== "send_message", actor: "a background helper" }),
      async () => {
        ran = true;
        return { isError: false, content: "sent" };
      },
    );
    expect(await execute("send_message", "{}")).toEqual({
      isError: true,
      content: 'Error: "send_message" is not a tool a background helper may use.',
    });
    expect(ran).toBe(false);
  });
});
