import { AsyncLocalStorage } from "node:async_hooks";
import type { SubrequestMeter } from "../lib/subrequest-meter.ts";

/**
 * Counting an object's subrequests where they are made, once: at the object's entry (each of its methods, entered
 * from outside, starts an invocation), on the global `fetch` and on the bindings' classes (each request to the
 * internet, and each call that goes to a Cloudflare service). What is counted is charged to the object whose code
 * makes the call: the isolate may hold several objects and the Worker, and the code that runs carries its object's
 * meter through awaits and timers. Code outside any object (the Worker's requests) is not counted. The bindings are
 * changed in place, not wrapped, so that every cache keyed by a binding or by `env` sees the same objects as before.
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

/** Prototypes whose methods count already (each class once per isolate). */
const counting = new WeakSet<object>();
const PLAIN = new Set<unknown>([Object.prototype, Array.prototype, Function.prototype]);

/**
 * Makes the classes of `env`'s bindings count: a call that returns a promise went to the service, and is spent from
 * the meter of the object whose code made it; an object a call hands back at once (a D1 statement, a session) has its
 * class made to count too. A Durable Object namespace hands out stubs whose methods are whatever the object has: an
 * object's code gets them wrapped, each call counted.
 */
export function countBindings(env: object): void {
  for (const value of Object.values(env)) {
    if (value !== null && typeof value === "object") countClassOf(value);
  }
}

function countClassOf(instance: object): void {
  const prototype: unknown = Object.getPrototypeOf(instance);
  if (prototype === null || typeof prototype !== "object" || PLAIN.has(prototype) || counting.has(prototype)) return;
  counting.add(prototype);
  const namespace = "idFromName" in prototype;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
    const original: unknown = descriptor?.value;
    if (name === "constructor" || typeof original !== "function" || !descriptor?.writable) continue;
    const handsOutStubs = namespace && (name === "get" || name === "getByName");
    Object.defineProperty(prototype, name, {
      ...descriptor,
      value(this: unknown, ...args: unknown[]): unknown {
        const result: unknown = Reflect.apply(original, this, args);
        const meter = running.getStore();
        if (isThenable(result)) meter?.spend("services");
        else if (handsOutStubs && meter !== undefined && isObject(result)) return countingStub(result, meter);
        else if (isObject(result)) countClassOf(result);
        return result;
      },
    });
  }
}

/** Names a stub answers to that are not calls to the object. */
const NOT_CALLS = new Set<string | symbol>(["then", "constructor", "toString", "toJSON", "valueOf", "id", "name"]);

function countingStub<Stub extends object>(stub: Stub, meter: SubrequestMeter): Stub {
  return new Proxy(stub, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      // Native methods want the stub itself as `this`, never the proxy.
      if (typeof property === "symbol" || NOT_CALLS.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        meter.spend("services");
        return Reflect.apply(value, target, args);
      };
    },
  });
}

function isObject(value: unknown): value is object {
  return value !== null && (typeof value === "object" || typeof value === "function");
}

function isThenable(value: unknown): boolean {
  return isObject(value) && typeof (value as { then?: unknown }).then === "function";
}
