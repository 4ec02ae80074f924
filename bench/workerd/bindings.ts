import type { Env } from "../../src/env.ts";
import type { PartyTally } from "../tally-snapshot.ts";
import { chargeService } from "./invocations.ts";
import { countD1, objectNamed } from "./tally.ts";

/**
 * The bindings a party (the Worker, or one object) is given, wrapped in proxies that count each billable operation
 * into its tally and otherwise pass every call through to the real binding unchanged. Each call that goes to the
 * service is also a subrequest of the invocation making it (see invocations.ts); the Workers AI binding is counted
 * where there is one (not under `wrangler dev --local`).
 */
export function countingEnv(env: Env, party: PartyTally): Env {
  return {
    ...env,
    DB: countingD1(env.DB, party),
    CONFIG: countingKv(env.CONFIG, party),
    MEDIA: countingR2(env.MEDIA, party),
    CHAT_SESSION: countingNamespace(env.CHAT_SESSION, "ChatSession"),
    HELPER_SESSION: countingNamespace(env.HELPER_SESSION, "HelperSession"),
    AGENT_CONTAINER: countingNamespace(env.AGENT_CONTAINER, "AgentContainer"),
    ...(env.AI ? { AI: countingAi(env.AI) } : {}),
  };
}

function countingAi(ai: Ai): Ai {
  return new Proxy(ai, {
    get(target, property) {
      const value = passThrough(target, property);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        chargeService("ai");
        return Reflect.apply(value, undefined, args);
      };
    },
  });
}

/** The property of the real object, methods bound to it (native bindings refuse to be called on a proxy). */
function passThrough(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property);
  return typeof value === "function" ? value.bind(target) : value;
}

/** Each request through a stub is a billed request of the object it names. */
function countingNamespace<Class extends Rpc.DurableObjectBranded | undefined>(
  namespace: DurableObjectNamespace<Class>,
  className: string,
): DurableObjectNamespace<Class> {
  return new Proxy(namespace, {
    get(target, property) {
      if (property === "idFromName") {
        return (name: string) => {
          const id = target.idFromName(name);
          objectNamed(id.toString(), className, name);
          return id;
        };
      }
      if (property === "get") {
        return (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) =>
          countingStub(target.get(id, options), objectNamed(id.toString(), className).tally);
      }
      if (property === "getByName") {
        return (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => {
          const stub = target.getByName(name, options);
          return countingStub(stub, objectNamed(stub.id.toString(), className, name).tally);
        };
      }
      return passThrough(target, property);
    },
  });
}

/** Names a stub answers to that are not calls to the object. */
const NOT_REQUESTS = new Set(["then", "constructor", "toString", "toJSON", "dup"]);

function countingStub<Stub extends object>(stub: Stub, callee: PartyTally): Stub {
  return new Proxy(stub, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      if (typeof property !== "string" || NOT_REQUESTS.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        callee.doRequests++;
        chargeService("do");
        return Reflect.apply(value, target, args);
      };
    },
  });
}

/** The statement each proxy stands for, so that a batch hands D1 its own statements. */
const statements = new WeakMap<object, { real: D1PreparedStatement; query: string }>();

function countingD1(db: D1Database, party: PartyTally): D1Database {
  return new Proxy(db, {
    get(target, property) {
      if (property === "prepare") return (query: string) => countingStatement(target.prepare(query), query, party);
      if (property === "batch") {
        return async (list: D1PreparedStatement[]) => {
          const known = list.map((statement) => statements.get(statement));
          party.d1Calls++;
          chargeService("d1");
          const results = await target.batch(list.map((statement, index) => known[index]?.real ?? statement));
          for (const [index, result] of results.entries()) countD1(party, known[index]?.query ?? "?", result.meta);
          return results;
        };
      }
      if (property === "exec") {
        return async (query: string) => {
          party.d1Calls++;
          chargeService("d1");
          party.d1Statements++;
          return target.exec(query);
        };
      }
      return passThrough(target, property);
    },
  });
}

/** Reads are run a second time through `all()` for D1's row counts when the call itself does not return them. */
const READ_ONLY = /^\s*(select|with|pragma)\b/i;

function countingStatement(statement: D1PreparedStatement, query: string, party: PartyTally): D1PreparedStatement {
  const proxy = new Proxy(statement, {
    get(target, property) {
      if (property === "bind") {
        return (...values: unknown[]) => countingStatement(target.bind(...values), query, party);
      }
      if (property === "all" || property === "run") {
        return async () => {
          party.d1Calls++;
          chargeService("d1");
          const result = await target.all();
          countD1(party, query, result.meta);
          return result;
        };
      }
      if (property === "first" || property === "raw") {
        return async (argument?: unknown) => {
          party.d1Calls++;
          chargeService("d1");
          if (READ_ONLY.test(query) && !/\breturning\b/i.test(query)) {
            // The real call for its answer, and the same read through all() for its row counts (not billed twice:
            // only the counts of the second are kept).
            const answer: unknown =
              property !== "first"
                ? await target.raw()
                : typeof argument === "string"
                  ? await target.first(argument)
                  : await target.first();
            const counted = await target.all<Record<string, unknown>>();
            countD1(party, query, counted.meta);
            return property === "raw" && isColumnNames(argument) ? withColumns(answer, counted) : answer;
          }
          // A write is run once, through all(), and its answer shaped as first() or raw() would shape it.
          const result = await target.all<Record<string, unknown>>();
          countD1(party, query, result.meta);
          const rows = result.results;
          if (property === "first") {
            const row = rows[0];
            if (row === undefined) return null;
            return typeof argument === "string" ? (row[argument] ?? null) : row;
          }
          const values = rows.map((row) => Object.values(row));
          return isColumnNames(argument) ? [Object.keys(rows[0] ?? {}), ...values] : values;
        };
      }
      return passThrough(target, property);
    },
  });
  statements.set(proxy, { real: statement, query });
  return proxy;
}

function isColumnNames(argument: unknown): boolean {
  return typeof argument === "object" && argument !== null && Reflect.get(argument, "columnNames") === true;
}

function withColumns(answer: unknown, result: D1Result<Record<string, unknown>>): unknown {
  return Array.isArray(answer) ? [Object.keys(result.results[0] ?? {}), ...answer] : answer;
}

function countingKv(kv: KVNamespace, party: PartyTally): KVNamespace {
  return new Proxy(kv, {
    get(target, property) {
      const value = passThrough(target, property);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        chargeService("kv");
        if (property === "get" || property === "getWithMetadata") {
          party.kvReads += Array.isArray(args[0]) ? args[0].length : 1;
        } else if (property === "put") party.kvWrites++;
        else if (property === "delete") party.kvDeletes++;
        else if (property === "list") party.kvLists++;
        return Reflect.apply(value, undefined, args);
      };
    },
  });
}

const R2_CLASS_A = new Set(["put", "list", "createMultipartUpload", "resumeMultipartUpload"]);
const R2_CLASS_B = new Set(["get", "head"]);

function countingR2(bucket: R2Bucket, party: PartyTally): R2Bucket {
  return new Proxy(bucket, {
    get(target, property) {
      const value = passThrough(target, property);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        chargeService("r2");
        if (R2_CLASS_A.has(property)) party.r2ClassA++;
        else if (R2_CLASS_B.has(property)) party.r2ClassB++;
        else if (property === "delete") party.r2Free++;
        return Reflect.apply(value, undefined, args);
      };
    },
  });
}
