import { describe, expect, it } from "vitest";
import { endingError, stopError } from "../../../../src/turn/engine/turn-stop.ts";
import { Tally } from "../../../../src/turn/tally.ts";

describe("stop classification", () => {
  it("records /stop as cancelled and the time limit as timeout, for every kind of turn", () => {
    expect(stopError("stopped").classification).toBe("cancelled");
    expect(stopError("deadline").classification).toBe("timeout");
  });

  it("puts a stop before the adapter's error, and says when a turn ended without an answer", () => {
    const tally = new Tally({ provider: "openai", model: "m" }, () => undefined);
    expect(endingError(undefined, tally, "openai")).toMatchObject({ classification: "internal", retryable: true });
    tally.error = { type: "error", classification: "auth", retryable: false, message: "no key" };
    expect(endingError("stopped", tally, "openai")?.classification).toBe("cancelled");
    expect(endingError(undefined, tally, "openai")?.classification).toBe("auth");
  });
});
