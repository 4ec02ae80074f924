import { describe, expect, it } from "vitest";
import {
  type AgentErrorEvent,
  BUDGET_RAN_OUT,
  type ErrorClassification,
  errorClassificationSchema,
} from "../../../src/protocol/events.ts";
import { TURN_TIME_LIMIT, userFacingError } from "../../../src/reply/error-text.ts";

const errorOf = (classification: ErrorClassification, message = "detail from the provider"): AgentErrorEvent => ({
  type: "error",
  classification,
  retryable: false,
  message,
});

/** What each classification's sentence must say; a Record, so a new classification fails to compile until added. */
const expected: Record<ErrorClassification, RegExp> = {
  auth: /refused this bot's credentials/,
  quota: /rate-limiting/,
  overloaded: /overloaded/,
  timeout: /did not answer in time/,
  transport: /could not be reached/,
  invalid_request: /refused the request \(detail from the provider\)/,
  internal: /Something went wrong: detail from the provider/,
  cancelled: /^⏹ Stopped\.$/,
};

describe("userFacingError", () => {
  it("has a case for every classification of the protocol", () => {
    expect(Object.keys(expected).sort()).toEqual([...errorClassificationSchema.options].sort());
  });

  it.each(errorClassificationSchema.options)("says what went wrong for %s, on one line", (classification) => {
    const text = userFacingError(errorOf(classification));
    expect(text).toMatch(expected[classification]);
    expect(text).not.toContain("\n");
  });

  it("gives every classification its own sentence", () => {
    const texts = errorClassificationSchema.options.map((classification) => userFacingError(errorOf(classification)));
    expect(new Set(texts).size).toBe(texts.length);
  });

  it("keeps the technical detail out of the chat except for refusals and internal errors", () => {
    for (const classification of ["auth", "quota", "overloaded", "timeout", "transport", "cancelled"] as const) {
      expect(userFacingError(errorOf(classification, "sk-secret-detail"))).not.toContain("sk-secret-detail");
    }
  });

  it("tells a turn that ran into its time limit from a provider that did not answer", () => {
    const limit = userFacingError(errorOf("timeout", TURN_TIME_LIMIT));
    expect(limit).toContain("longer than one turn may run");
    expect(limit).not.toBe(userFacingError(errorOf("timeout")));
  });

  it("tells a spent daily budget from the provider's rate limit", () => {
    const budget = userFacingError(errorOf("quota", BUDGET_RAN_OUT));
    expect(budget).toContain("budget for today ran out");
    expect(budget).not.toMatch(/rate-limiting/);
  });

  it.each(["invalid_request", "internal"] as const)(
    "shortens a long %s message to 200 characters",
    (classification) => {
      const long = `${"a".repeat(199)}${"b".repeat(300)}`;
      const text = userFacingError(errorOf(classification, long));
      expect(text).toContain(`${"a".repeat(199)}…`);
      expect(text).not.toContain("bbb");
      const exact = "c".repeat(200);
      expect(userFacingError(errorOf(classification, exact))).toContain(exact);
      expect(userFacingError(errorOf(classification, exact))).not.toContain("…");
    },
  );
});
