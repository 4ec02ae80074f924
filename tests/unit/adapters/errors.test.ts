import { describe, expect, it } from "vitest";
import { errorEventOf, ProviderError, providerErrorFrom, type SdkErrorClasses } from "../../../src/adapters/errors.ts";
import { type ErrorClassification, errorClassificationSchema } from "../../../src/protocol/events.ts";

/** An error as both SDKs throw it for an API answer: an Error with the HTTP status on it. */
function apiError(status: number, message = "the provider said no"): Error {
  return Object.assign(new Error(message), { status });
}

/** Stand-ins for an SDK's error classes, so that `instanceof` checks can be told apart from name and status checks. */
class FakeUserAbort extends Error {}
class FakeConnectionTimeout extends Error {}
class FakeConnectionError extends Error {}
const sdk: SdkErrorClasses = {
  APIUserAbortError: FakeUserAbort,
  APIConnectionTimeoutError: FakeConnectionTimeout,
  APIConnectionError: FakeConnectionError,
};

describe("providerErrorFrom: HTTP statuses", () => {
  it.each([
    [401, "auth"],
    [403, "auth"],
    [408, "timeout"],
    [429, "quota"],
    [503, "overloaded"],
    [529, "overloaded"],
    [500, "transport"],
    [502, "transport"],
    [504, "transport"],
    [400, "invalid_request"],
    [404, "invalid_request"],
    [413, "invalid_request"],
    [422, "invalid_request"],
  ] as const)("%i is %s", (status, classification) => {
    const error = providerErrorFrom(apiError(status), "OpenAI");
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.classification).toBe(classification);
    expect(error.message).toBe(`OpenAI: ${status} the provider said no`);
  });

  it("keeps the SDK's error as the cause", () => {
    const original = apiError(429);
    expect(providerErrorFrom(original, "OpenAI").cause).toBe(original);
  });

  it("reads a status from a plain object too, not only from an Error", () => {
    const error = providerErrorFrom({ status: 401 }, "Anthropic");
    expect(error.classification).toBe("auth");
    expect(error.message).toBe("Anthropic: 401 unknown error");
  });

  it("ignores a status that is not a number", () => {
    expect(providerErrorFrom({ status: "429" }, "OpenAI").classification).toBe("internal");
  });
});

describe("providerErrorFrom: errors without a status", () => {
  it("classifies an abort as cancelled, whatever status it carries", () => {
    const aborted = Object.assign(new Error("aborted"), { name: "AbortError" });
    expect(providerErrorFrom(aborted, "OpenAI").classification).toBe("cancelled");
    expect(
      providerErrorFrom(new DOMException("The operation was aborted", "AbortError"), "OpenAI").classification,
    ).toBe("cancelled");
    const controller = new AbortController();
    controller.abort();
    expect(providerErrorFrom(controller.signal.reason, "OpenAI").classification).toBe("cancelled");
    expect(
      providerErrorFrom(Object.assign(new FakeUserAbort("user abort"), { status: 500 }), "X", sdk).classification,
    ).toBe("cancelled");
  });

  it("classifies the SDK's connection classes: timeout and transport", () => {
    expect(providerErrorFrom(new FakeConnectionTimeout("timed out"), "X", sdk).classification).toBe("timeout");
    expect(providerErrorFrom(new FakeConnectionError("refused"), "X", sdk).classification).toBe("transport");
    // Without the SDK's classes the same errors are only what their message says.
    expect(providerErrorFrom(new FakeConnectionTimeout("timed out"), "X").classification).toBe("internal");
  });

  it("classifies a TypeError (what fetch throws) as transport", () => {
    const error = providerErrorFrom(new TypeError("Failed to parse URL"), "OpenAI");
    expect(error.classification).toBe("transport");
    expect(error.retryable).toBe(true);
  });

  it.each([
    "Network connection lost.",
    "socket hang up",
    "read ECONNRESET",
    "fetch failed",
    "The stream was terminated",
  ])("classifies a broken connection (%s) as transport", (message) => {
    expect(providerErrorFrom(new Error(message), "Anthropic").classification).toBe("transport");
  });

  it("classifies anything else as internal", () => {
    expect(providerErrorFrom(new Error("Cannot read properties of undefined"), "OpenAI").classification).toBe(
      "internal",
    );
    expect(providerErrorFrom("a thrown string", "OpenAI").message).toBe("OpenAI: a thrown string");
    const unknown = providerErrorFrom(42, "OpenAI");
    expect(unknown.classification).toBe("internal");
    expect(unknown.message).toBe("OpenAI: unknown error");
    expect(providerErrorFrom(undefined, "OpenAI").classification).toBe("internal");
  });
});

describe("retryable", () => {
  const expected: Record<ErrorClassification, boolean> = {
    quota: true,
    overloaded: true,
    transport: true,
    timeout: true,
    auth: false,
    invalid_request: false,
    internal: false,
    cancelled: false,
  };

  it("covers every classification", () => {
    expect(Object.keys(expected).sort()).toEqual([...errorClassificationSchema.options].sort());
  });

  it.each(Object.entries(expected))("%s: %s", (classification, retryable) => {
    expect(new ProviderError(classification as ErrorClassification, "x").retryable).toBe(retryable);
  });

  it("is derived from the classification of a converted error", () => {
    expect(providerErrorFrom(apiError(429), "X").retryable).toBe(true);
    expect(providerErrorFrom(apiError(503), "X").retryable).toBe(true);
    expect(providerErrorFrom(apiError(401), "X").retryable).toBe(false);
    expect(providerErrorFrom(apiError(400), "X").retryable).toBe(false);
  });

  it("can be overridden per error", () => {
    expect(new ProviderError("quota", "daily budget", { retryable: false }).retryable).toBe(false);
    expect(new ProviderError("internal", "flaky", { retryable: true }).retryable).toBe(true);
  });
});

describe("messages", () => {
  it("redacts API keys, bearer tokens and bot tokens", () => {
    const key = "sk-proj-AbCdEf0123456789_secret";
    const botToken = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
    const error = providerErrorFrom(
      apiError(401, `Incorrect API key provided: ${key}. Header: Bearer abcdefgh12345678. Bot ${botToken}`),
      "OpenAI",
    );
    expect(error.message).not.toContain(key);
    expect(error.message).not.toContain("AbCdEf0123456789");
    expect(error.message).not.toContain("abcdefgh12345678");
    expect(error.message).not.toContain(botToken);
    expect(error.message).toContain("sk-…");
    expect(error.message).toContain("Bearer …");
    expect(errorEventOf(apiError(400, `bad key ${key}`), "OpenAI").message).not.toContain(key);
  });

  it("shortens a long message to 300 characters of detail", () => {
    const error = providerErrorFrom(apiError(400, "x".repeat(5000)), "OpenAI");
    expect(error.message).toBe(`OpenAI: 400 ${"x".repeat(300)}`);
  });
});

describe("a ProviderError", () => {
  it("passes through unchanged", () => {
    const original = new ProviderError("overloaded", "Anthropic: busy", { retryable: false });
    expect(providerErrorFrom(original, "OpenAI", sdk)).toBe(original);
    expect(errorEventOf(original, "OpenAI")).toEqual({
      type: "error",
      classification: "overloaded",
      retryable: false,
      message: "Anthropic: busy",
    });
  });
});

describe("errorEventOf", () => {
  it("is the classified error as an event", () => {
    expect(errorEventOf(apiError(529, "Overloaded"), "Anthropic")).toEqual({
      type: "error",
      classification: "overloaded",
      retryable: true,
      message: "Anthropic: 529 Overloaded",
    });
  });
});

describe("providerErrorFrom: no connection at all", () => {
  it("says so when the SDK's connection error (no response came) is thrown, with its cause", () => {
    const error = providerErrorFrom(
      new FakeConnectionError("Connection error.", { cause: new Error("Network connection lost.") }),
      "openai",
      sdk,
    );
    expect(error.classification).toBe("transport");
    expect(error.message).toBe("openai: could not connect: Network connection lost.");
  });

  it("does not for a connection that broke mid-answer, or a timeout", () => {
    expect(providerErrorFrom(new Error("Network connection lost."), "openai", sdk).message).not.toContain(
      "could not connect",
    );
    const timeout = providerErrorFrom(new FakeConnectionTimeout("timed out"), "openai", sdk);
    expect(timeout.classification).toBe("timeout");
    expect(timeout.message).not.toContain("could not connect");
  });
});
