import { AsyncLocalStorage } from "node:async_hooks";
import {
  EXTERNAL_KINDS,
  type ExternalKind,
  type InvocationTally,
  SERVICE_KINDS,
  type ServiceKind,
} from "../tally-snapshot.ts";

/**
 * The counting wrapper's invocations (see InvocationTally): which one is running, and the subrequests each made.
 * The code running in the runtime carries its party in an AsyncLocalStorage (it follows awaits, timers and
 * `waitUntil`): a Worker request is its own invocation; an object's code is charged to that object's newest
 * invocation, which is what the platform does.
 */

/** An object as this module tracks it: its newest invocation, and how many of its calls are under way. */
export interface ObjectInvocations {
  party: string;
  current: InvocationTally | undefined;
  /** Calls into the object under way (incoming and the object's own), as trackCalls counts them. */
  busy: () => boolean;
}

type Running = { object: ObjectInvocations } | { invocation: InvocationTally };

const running = new AsyncLocalStorage<Running>();
const finished: InvocationTally[] = [];
const open = new Set<InvocationTally>();
let nextId = 1;
/** Subrequests made where no invocation was known (none are expected: a non-zero count is a gap in the wrapper). */
export const unattributed = { count: 0 };

function newInvocation(party: string, kind: string): InvocationTally {
  const invocation: InvocationTally = {
    id: nextId++,
    party,
    kind,
    startedAt: Date.now(),
    handlerEndedAt: null,
    endedAt: null,
    external: Object.fromEntries(EXTERNAL_KINDS.map((name) => [name, 0])) as Record<ExternalKind, number>,
    services: Object.fromEntries(SERVICE_KINDS.map((name) => [name, 0])) as Record<ServiceKind, number>,
  };
  open.add(invocation);
  return invocation;
}

function close(invocation: InvocationTally): void {
  if (invocation.endedAt !== null) return;
  invocation.endedAt = Date.now();
  open.delete(invocation);
  finished.push(invocation);
}

/**
 * A request to the Worker: runs `handler` as one invocation, which ends once its response is ready and every promise
 * it passed to `waitUntil` has settled.
 */
export function workerInvocation<T>(
  kind: string,
  ctx: ExecutionContext,
  handler: (ctx: ExecutionContext) => Promise<T>,
): Promise<T> {
  const invocation = newInvocation("worker", kind);
  const waiting: Promise<unknown>[] = [];
  const counted: ExecutionContext = Object.create(ctx, {
    waitUntil: {
      value: (promise: Promise<unknown>) => {
        waiting.push(promise.catch(() => undefined));
        ctx.waitUntil(promise);
      },
    },
  });
  return running.run({ invocation }, async () => {
    try {
      return await handler(counted);
    } finally {
      invocation.handlerEndedAt = Date.now();
      // Promises added while others settle are waited for too.
      void (async () => {
        for (let seen = 0; seen < waiting.length; seen = waiting.length) await Promise.all(waiting.slice(seen));
        close(invocation);
      })();
    }
  });
}

/**
 * A call into an object's method. An incoming one (the call did not come from the object's own code) is a new
 * invocation that takes over from the one before; the object's own calls run in whatever invocation is current.
 */
export function objectCall<T>(object: ObjectInvocations, method: string, call: () => T): T {
  if (runningObject() !== object) {
    const previous = object.current;
    if (previous) close(previous);
    const invocation = newInvocation(object.party, method);
    object.current = invocation;
    return running.run({ object }, () => {
      const ended = () => {
        invocation.handlerEndedAt = Date.now();
      };
      try {
        const result = call();
        if (result instanceof Promise) return result.finally(ended) as T;
        ended();
        return result;
      } catch (error) {
        ended();
        throw error;
      }
    });
  }
  return call();
}

function runningObject(): ObjectInvocations | undefined {
  const store = running.getStore();
  return store && "object" in store ? store.object : undefined;
}

/** The object has nothing under way any more: its invocation is over. */
export function objectIdle(object: ObjectInvocations): void {
  if (object.current && !object.busy()) close(object.current);
}

/** The invocation a subrequest made now is charged to: the Worker request's, or the object's newest. */
function chargedNow(): InvocationTally | undefined {
  const store = running.getStore();
  if (!store) return undefined;
  return "invocation" in store ? store.invocation : store.object.current;
}

export function chargeService(kind: ServiceKind): void {
  const invocation = chargedNow();
  if (invocation) invocation.services[kind]++;
  else unattributed.count++;
}

function chargeExternal(kind: ExternalKind): void {
  const invocation = chargedNow();
  if (invocation) invocation.external[kind]++;
  else unattributed.count++;
}

/** The invocations since `afterId` (finished ones, then those still open), for the benchmark. */
export function invocationsAfter(afterId: number): InvocationTally[] {
  return [...finished, ...open].filter((invocation) => invocation.id > afterId).sort((a, b) => a.id - b.id);
}

/** The base URLs each kind of destination is reached at, from the bot's own variables. */
const destinations: { prefix: string; kind: ExternalKind }[] = [];

/** Learns where Telegram, the model APIs and the search backends are, from the first `env` seen. */
export function learnDestinations(env: Record<string, unknown>): void {
  if (destinations.length > 0) return;
  const named = (names: string[], kind: ExternalKind) => {
    for (const name of names) {
      const value = env[name];
      if (typeof value === "string" && value !== "") destinations.push({ prefix: value, kind });
    }
  };
  named(["TELEGRAM_API_BASE_URL"], "telegram");
  named(
    [
      "OPENAI_BASE_URL",
      "ANTHROPIC_BASE_URL",
      "WORKERS_AI_BASE_URL",
      "AGENT_RUNNER_URL",
      "SPEECH_BASE_URL",
      "TRANSCRIPTION_BASE_URL",
    ],
    "model",
  );
  named(["BRAVE_SEARCH_BASE_URL", "TAVILY_BASE_URL", "SEARXNG_URL"], "search");
  destinations.push(
    { prefix: "https://api.telegram.org", kind: "telegram" },
    { prefix: "https://api.openai.com", kind: "model" },
    { prefix: "https://api.anthropic.com", kind: "model" },
  );
}

function destinationOf(input: RequestInfo | URL): ExternalKind {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  return destinations.find((destination) => url.startsWith(destination.prefix))?.kind ?? "web";
}

/**
 * Replaces the global `fetch` once, before the bot's modules capture it (grammY takes it when a client is made):
 * every outbound request is charged to the invocation that makes it, by destination.
 */
export function countOutboundFetch(): void {
  const plain = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    chargeExternal(destinationOf(input));
    return plain(input, init);
  };
}
