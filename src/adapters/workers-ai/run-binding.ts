import { errorText } from "../../lib/errors.ts";
import { redactSecrets } from "../../lib/redact.ts";
import { ProviderError } from "../errors.ts";
import { backoffMs } from "../model-http.ts";
import { classifyBindingError } from "./binding-errors.ts";

/** The part of the `AI` binding a model call uses (`env.AI` has it; tests pass a fake). */
export interface WorkersAiRunner {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

const LABEL = "Workers AI";

/** One call of the binding: what to run, how often to retry, how long to wait for its output, who may cancel it. */
export interface BindingCall {
  model: string;
  inputs: Record<string, unknown>;
  maxRetries: number;
  /** Until the output (a streamed call's stream) arrives, as the HTTP adapters wait for an answer's headers. */
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/**
 * One `env.AI.run`, with the retry policy the HTTP adapters have (a retryable failure, such as capacity, a rate limit
 * or a timeout, is tried again up to `maxRetries` times after the same backoff), each failure classified as a
 * `ProviderError`. The binding cannot be cancelled: when the turn stops or the wait times out, the call is left to
 * finish while the caller moves on.
 */
export async function runBinding(runner: WorkersAiRunner, call: BindingCall): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    const timeout = AbortSignal.timeout(call.timeoutMs);
    try {
      return await untilAborted(runner.run(call.model, call.inputs), anyOf(call.signal, timeout));
    } catch (error) {
      if (call.signal?.aborted) throw cancelled(error);
      const failure = timeout.aborted
        ? new ProviderError("timeout", `${LABEL}: no answer within ${call.timeoutMs} ms`, { cause: error })
        : bindingFailure(error);
      if (!failure.retryable || attempt >= call.maxRetries) throw failure;
      await pause(backoffMs(attempt), call.signal);
    }
  }
}

function bindingFailure(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  const message = errorText(error);
  return new ProviderError(classifyBindingError(message), `${LABEL}: ${redactSecrets(message).slice(0, 300)}`, {
    cause: error,
  });
}

function cancelled(cause: unknown): ProviderError {
  return new ProviderError("cancelled", `${LABEL}: the call was cancelled`, { cause });
}

function anyOf(signal: AbortSignal | undefined, timeout: AbortSignal): AbortSignal {
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(signal.reason));
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
