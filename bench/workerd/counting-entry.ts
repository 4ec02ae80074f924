/**
 * The bot as `wrangler dev` runs it for the benchmark's cost scenario: src/worker.ts unchanged, with its bindings and
 * its objects' storage wrapped so that every billable operation is counted (see tally.ts). Only the benchmark starts
 * it (`wrangler dev bench/workerd/counting-entry.ts`); the timing scenarios run the plain entry.
 */
// First: the global fetch is replaced before the bot's modules run.
import "./count-fetch.ts";
import type { Env } from "../../src/env.ts";
import app, { ChatSession as PlainChatSession, HelperSession as PlainHelperSession } from "../../src/worker.ts";
import type { PartyTally } from "../tally-snapshot.ts";
import { countingEnv } from "./bindings.ts";
import { learnDestinations, objectCall, workerInvocation } from "./invocations.ts";
import { instrumentStorage } from "./storage.ts";
import { enter, exposeTally, keptAlive, type LiveObject, objectNamed, workerParty } from "./tally.ts";

export * from "../../src/worker.ts";

exposeTally();

/** Each instance's counters, found by the wrappers of its methods. */
const watched = new WeakMap<object, LiveObject>();

function watch(ctx: DurableObjectState, env: Env, className: string): LiveObject {
  learnDestinations(env as unknown as Record<string, unknown>);
  const live = objectNamed(ctx.id.toString(), className);
  instrumentStorage(ctx.storage, live);
  const waitUntil = ctx.waitUntil.bind(ctx);
  ctx.waitUntil = (promise) => {
    keptAlive(live, promise);
    waitUntil(promise);
  };
  return live;
}

export class ChatSession extends PlainChatSession {
  constructor(...[ctx, env]: ConstructorParameters<typeof PlainChatSession>) {
    const live = watch(ctx, env, "ChatSession");
    super(ctx, countingEnv(env, live.tally));
    watched.set(this, live);
  }
}

export class HelperSession extends PlainHelperSession {
  constructor(...[ctx, env]: ConstructorParameters<typeof PlainHelperSession>) {
    const live = watch(ctx, env, "HelperSession");
    super(ctx, countingEnv(env, live.tally));
    watched.set(this, live);
  }
}

/**
 * Every method of the class (its RPC methods and alarm, and the helpers they call) marks the object active while it
 * runs: the object's billed duration is the union of those spans. Requests are counted where they are sent (the
 * stubs), since a method called from within the object is not one. A call that does not come from the object's own
 * code is an event delivered to it: a new invocation (see invocations.ts).
 */
function trackCalls(counting: object, plain: object): void {
  for (const name of Object.getOwnPropertyNames(plain)) {
    const method: unknown = Object.getOwnPropertyDescriptor(plain, name)?.value;
    if (name === "constructor" || typeof method !== "function") continue;
    Object.defineProperty(counting, name, {
      configurable: true,
      writable: true,
      value(this: object, ...args: unknown[]): unknown {
        const live = watched.get(this);
        if (!live) return Reflect.apply(method, this, args);
        return objectCall(live.invocations, name, () => {
          const leave = enter(live, name);
          try {
            const result: unknown = Reflect.apply(method, this, args);
            if (result instanceof Promise) return result.finally(leave);
            leave();
            return result;
          } catch (error) {
            leave();
            throw error;
          }
        });
      },
    });
  }
}
trackCalls(ChatSession.prototype, PlainChatSession.prototype);
trackCalls(HelperSession.prototype, PlainHelperSession.prototype);

/** The Worker's env wrapped once (the runtime hands every request the same object). */
const workerEnvs = new WeakMap<Env, Env>();

function workerEnv(env: Env, party: PartyTally): Env {
  let wrapped = workerEnvs.get(env);
  if (!wrapped) {
    wrapped = countingEnv(env, party);
    workerEnvs.set(env, wrapped);
  }
  return wrapped;
}

export default {
  fetch(request, env, ctx) {
    const party = workerParty();
    party.workerRequests++;
    learnDestinations(env as unknown as Record<string, unknown>);
    const kind = `${request.method} ${new URL(request.url).pathname}`;
    return workerInvocation(kind, ctx, async (counted) => app.fetch(request, workerEnv(env, party), counted));
  },
} satisfies ExportedHandler<Env>;
