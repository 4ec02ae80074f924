import { AsyncLocalStorage } from "node:async_hooks";
import type { SubrequestMeter } from "../lib/subrequest-meter.ts";

/**
 * Counting an object's subrequests where they are made, once: at the object's entry (each of its methods, entered
 * from outside, starts an invocation), on its bindings (each call that goes to a Cloudflare service), and on the
 * global `fetch` (each request to the internet, charged to the object whose code makes it: the isolate may hold
 * several objects and the Worker, and the code that runs carries its object's meter through awaits and timers).
 */

const running = new AsyncLocalStorage<SubrequestMeter>();

/** An object that counts its subrequests. */
export interface MeteredObject {
  readonly subrequests: SubrequestMeter;
}

let fetchCounted = false;

/** Replaces the global `fetch` (once per isolate): a request made by an object's code is spent from its meter. */
function countFetches(): void {
  if (fetchCounted) return;
  fetchCounted = true;
  const plain = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    running.getStore()?.spend("external");
    return plain(input, init);
  };
}

/**
 * Wraps every method of an object's class: entered from outside the object (an RPC call, a fetch, the alarm: an event
 * the platform tops the object's limits up for) it starts a new invocation of the meter and runs with it; called by
 * the object's own code, it runs as it is.
 */
export function meterInvocations(prototype: object): void {
  countFetches();
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const method: unknown = Object.getOwnPropertyDescriptor(prototype, name)?.value;
    if (name === "constructor" || typeof method !== "function") continue;
    Object.defineProperty(prototype, name, {
      configurable: true,
      writable: true,
      value(this: MeteredObject, ...args: unknown[]): unknown {
        const meter = this.subrequests;
        if (meter === undefined || running.getStore() === meter) return Reflect.apply(method, this, args);
        meter.topUp();
        return running.run(meter, () => Reflect.apply(method, this, args));
      },
    });
  }
}

/**
 * The object's `env` with each binding counted: a call to a binding (or to what a binding hands out: a Durable
 * Object's stub, a D1 statement) that returns a promise went to the service, and is spent from the meter.
 * Variables pass through.
 */
export function meteredEnv<E extends object>(env: E, meter: SubrequestMeter): E {
  const wrapped = new Map<string | symbol, unknown>();
  return new Proxy(env, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (value === null || (typeof value !== "object" && typeof value !== "function")) return value;
      if (!wrapped.has(property))
        wrapped.set(
          property,
          counted(value, () => meter.spend("services")),
        );
      return wrapped.get(property);
    },
  });
}

/** The real object behind each counting proxy, handed to native methods in its place. */
const originals = new WeakMap<object, object>();

/** Names that are never calls to a service (a stub answers any name, so these must not be taken for methods). */
const NOT_CALLS = new Set<string | symbol>(["then", "constructor", "toString", "toJSON", "valueOf"]);

function counted<T extends object>(target: T, spend: () => void): T {
  const proxy = new Proxy(target, {
    get(inner, property) {
      const value: unknown = Reflect.get(inner, property);
      if (typeof value !== "function") return value;
      // Native methods want their own object as `this`, never the proxy.
      if (typeof property === "symbol" || NOT_CALLS.has(property)) return value.bind(inner);
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, inner, args.map(original));
        if (isThenable(result)) {
          spend();
          return result;
        }
        return result !== null && (typeof result === "object" || typeof result === "function")
          ? counted(result, spend)
          : result;
      };
    },
  });
  originals.set(proxy, target);
  return proxy;
}

/** A counting proxy (or a list of them, as D1's batch takes) as the native method wants it. */
function original(argument: unknown): unknown {
  if (Array.isArray(argument)) return argument.map(original);
  return (argument !== null && typeof argument === "object" && originals.get(argument)) || argument;
}

function isThenable(value: unknown): boolean {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
