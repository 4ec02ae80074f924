import { describe, expect, it } from "vitest";
import { NO_CONNECTION, providerSetupOf } from "../../../src/config/provider-setup.ts";
import { readSettings } from "../../../src/config/settings.ts";
import {
  type AgentErrorEvent,
  BUDGET_RAN_OUT,
  type ErrorClassification,
  errorClassificationSchema,
} from "../../../src/protocol/events.ts";
import { notSetUpText, TURN_TIME_LIMIT, userFacingError } from "../../../src/reply/error-text.ts";

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

describe("userFacingError with the provider's setup", () => {
  // The provider's setup reads only its base URL.
  const openai = (baseUrl?: string) => providerSetupOf("openai", readSettings({ OPENAI_BASE_URL: baseUrl ?? "" }));

  it("names the provider and the key's variable, and where it is set, when a key is refused", () => {
    const text = userFacingError(errorOf("auth"), openai());
    expect(text).toBe(
      "⚠️ OpenAI refused this bot's credentials (OPENAI_API_KEY). The bot's owner needs to check that key: in .dev.vars locally, or with `npx wrangler secret put OPENAI_API_KEY` deployed.",
    );
  });

  it("says nothing answers at a local address, rather than an outage, when no connection could be made", () => {
    const refused = errorOf("transport", `openai: ${NO_CONNECTION}: Network connection lost.`);
    expect(userFacingError(refused, openai("http://127.0.0.1:9911/openai/v1?key=secret"))).toBe(
      "⚠️ Nothing answers at OPENAI_BASE_URL (http://127.0.0.1:9911) on this machine: the server there is not running, or the address is wrong.",
    );
    expect(userFacingError(refused, openai("https://gateway.example/v1/acct/123"))).toBe(
      "⚠️ OpenAI could not be reached at OPENAI_BASE_URL (https://gateway.example). If this lasts, check that address.",
    );
    expect(userFacingError(refused, openai())).toBe("⚠️ OpenAI could not be reached. Please try again shortly.");
  });

  it("keeps 'could not be reached' for a connection that broke, or a server error, wherever it is", () => {
    const broke = errorOf("transport", "openai: Network connection lost.");
    expect(userFacingError(broke, openai("http://127.0.0.1:9911/v1"))).toBe(
      "⚠️ OpenAI could not be reached. Please try again shortly.",
    );
  });

  it("says that no model is set up at all, and where to add one, when the built-in fallback cannot run", () => {
    const none = notSetUpText("workers-ai", "the Workers AI binding does not run here", true);
    expect(none).toContain("No model is set up for this bot yet");
    expect(none).toContain(".dev.vars");
    expect(none).toContain("stand-in model");
    expect(notSetUpText("anthropic", "ANTHROPIC_API_KEY is not set", false)).toBe(
      "⚠️ This chat uses anthropic, but ANTHROPIC_API_KEY is not set. The bot's owner needs to set it.",
    );
  });
});
