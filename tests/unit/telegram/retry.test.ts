import { afterEach, describe, expect, it, vi } from "vitest";
import type { Transformer } from "../../../src/telegram/bot-api.ts";
import { type RetryOptions, retryTransformer } from "../../../src/telegram/retry.ts";

type Previous = Parameters<Transformer>[0];
/** grammY types its signal with the abort-controller shim's AbortSignal; the runtime's is what it gets in a Worker. */
type GrammySignal = Parameters<Transformer>[3];

/** What grammY's API client resolves with: Telegram's JSON answer. */
type Answer =
  | { ok: true; result: unknown }
  | { ok: false; error_code: number; description: string; parameters?: { retry_after?: number } };

const ok: Answer = { ok: true, result: { message_id: 7 } };
const failure = (error_code: number, retry_after?: number): Answer => ({
  ok: false,
  error_code,
  description: `Error ${error_code}`,
  ...(retry_after === undefined ? {} : { parameters: { retry_after } }),
});

/**
 * Runs one `sendMessage` through the transformer with a fake `previous` that answers from the script (the last
 * answer repeats), recording the calls and the waits.
 */
async function run(script: Answer[], options: Partial<RetryOptions> = {}) {
  const waits: number[] = [];
  const calls: Array<{ method: string; payload: unknown; signal: AbortSignal | undefined }> = [];
  const previous = async (method: string, payload: unknown, signal?: AbortSignal) => {
    calls.push({ method, payload, signal });
    return script[Math.min(calls.length - 1, script.length - 1)]!;
  };
  const transformer = retryTransformer({
    maxAttempts: 3,
    maxRetryAfterSeconds: 60,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  const signal = new AbortController().signal;
  const result = await transformer(
    previous as unknown as Previous,
    "sendMessage",
    { chat_id: 1001, text: "hello" },
    signal as unknown as GrammySignal,
  );
  return { result: result as Answer, waits, calls, signal };
}

describe("retryTransformer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("passes a success through at once, with the method, payload and signal", async () => {
    const { result, waits, calls, signal } = await run([ok]);
    expect(result).toEqual(ok);
    expect(waits).toEqual([]);
    expect(calls).toEqual([{ method: "sendMessage", payload: { chat_id: 1001, text: "hello" }, signal }]);
  });

  it("retries a 429 after Telegram's retry_after", async () => {
    const { result, waits, calls } = await run([failure(429, 3), failure(429, 1), ok]);
    expect(result).toEqual(ok);
    expect(waits).toEqual([3000, 1000]);
    expect(calls).toHaveLength(3);
  });

  it("retries a 429 asking for exactly the longest wait allowed", async () => {
    const { result, waits } = await run([failure(429, 60), ok]);
    expect(result).toEqual(ok);
    expect(waits).toEqual([60_000]);
  });

  it("gives up on a 429 that asks for longer than maxRetryAfterSeconds", async () => {
    const { result, waits, calls } = await run([failure(429, 61), ok]);
    expect(result).toEqual(failure(429, 61));
    expect(waits).toEqual([]);
    expect(calls).toHaveLength(1);
  });

  it("gives up on a 429 without retry_after", async () => {
    const { result, waits, calls } = await run([failure(429), ok]);
    expect(result).toEqual(failure(429));
    expect(waits).toEqual([]);
    expect(calls).toHaveLength(1);
  });

  it("retries 5xx with a backoff of 500, 1000 and 2000 ms", async () => {
    const { result, waits, calls } = await run([failure(500), failure(502), failure(503), ok]);
    expect(result).toEqual(ok);
    expect(waits).toEqual([500, 1000, 2000]);
    expect(calls).toHaveLength(4);
  });

  it("stops after maxAttempts retries and returns the last failure", async () => {
    const { result, waits, calls } = await run([failure(502)], { maxAttempts: 2 });
    expect(result).toEqual(failure(502));
    expect(waits).toEqual([500, 1000]);
    expect(calls).toHaveLength(3);
  });

  it("counts 429 retries against maxAttempts too", async () => {
    const { result, calls, waits } = await run([failure(429, 1)], { maxAttempts: 3 });
    expect(result).toEqual(failure(429, 1));
    expect(calls).toHaveLength(4);
    expect(waits).toEqual([1000, 1000, 1000]);
  });

  it("does not retry at all with maxAttempts 0", async () => {
    const { result, calls } = await run([failure(500), ok], { maxAttempts: 0 });
    expect(result).toEqual(failure(500));
    expect(calls).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 409])("does not retry a %i", async (status) => {
    const { result, waits, calls } = await run([failure(status), ok]);
    expect(result).toEqual(failure(status));
    expect(waits).toEqual([]);
    expect(calls).toHaveLength(1);
  });

  it("waits with setTimeout when no sleep is given", async () => {
    vi.useFakeTimers();
    const script = [failure(500), ok];
    let calls = 0;
    const previous = async () => script[calls++]!;
    const pending = retryTransformer({ maxAttempts: 3, maxRetryAfterSeconds: 60 })(
      previous as unknown as Previous,
      "getMe",
      {},
    );
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    expect(await pending).toEqual(ok);
  });
});
