/**
 * What the counting wrapper (bench/workerd/) tallies inside the runtime and hands out through the inspector: the
 * billable operations of the Worker and of each Durable Object. Shared by the wrapper (workerd) and the benchmark
 * (Node); plain data, no platform types.
 */

/** Operations one party (the Worker, or one object) caused. */
export interface OperationCounts {
  /** Requests that reached the Worker's fetch handler. */
  workerRequests: number;
  /** RPC calls and fetches through Durable Object stubs (each is a billed request of the object it names). */
  doRequests: number;
  /** Alarm invocations (billed as requests too). */
  alarms: number;
  /** Wall time the object had an RPC call, fetch or alarm under way (overlaps counted once): its billed duration. */
  doActiveMs: number;
  /** Statements through the object's `ctx.storage.sql.exec`, and the rows their cursors report. */
  sqlStatements: number;
  sqlRowsRead: number;
  sqlRowsWritten: number;
  /** The Storage API's key-value methods, billed as rows of a hidden SQLite table: keys read and written. */
  storageKeysRead: number;
  storageKeysWritten: number;
  /** `setAlarm` calls (each billed as one row written) and `deleteAlarm` calls (not priced separately). */
  alarmsSet: number;
  alarmsDeleted: number;
  /** D1: round trips (a batch is one), statements, and the rows D1's result metadata reports. */
  d1Calls: number;
  d1Statements: number;
  d1RowsRead: number;
  d1RowsWritten: number;
  /** Workers KV operations, per key. */
  kvReads: number;
  kvWrites: number;
  kvDeletes: number;
  kvLists: number;
  /** R2: class A (put, list, multipart), class B (get, head), and free (delete) operations. */
  r2ClassA: number;
  r2ClassB: number;
  r2Free: number;
}

/** One statement text (whitespace folded, lists of placeholders shortened) and what its runs cost. */
export interface StatementCounts {
  count: number;
  rowsRead: number;
  rowsWritten: number;
}

export interface PartyTally extends OperationCounts {
  /** By statement: `sqlite: …` for the object's own database, `d1: …` for D1. */
  statements: Record<string, StatementCounts>;
}

export interface ObjectTally extends PartyTally {
  /** The object's class, and its name when the Worker made its id from one. */
  className: string;
  name?: string;
  /** Calls under way now (RPC, fetch, alarm), and the time of its next alarm if one is set. */
  inFlight: number;
  alarmAt?: number;
}

export interface TallySnapshot {
  /** When the snapshot was taken (the benchmark's clock). */
  at: number;
  worker: PartyTally;
  /** By object id (hex). */
  objects: Record<string, ObjectTally>;
}

/** Where an outbound `fetch` went, told apart by the base URLs the bot is configured with. */
export const EXTERNAL_KINDS = ["telegram", "model", "search", "web"] as const;
export type ExternalKind = (typeof EXTERNAL_KINDS)[number];
/** Which Cloudflare service a binding call went to. */
export const SERVICE_KINDS = ["kv", "d1", "r2", "do", "ai"] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

/**
 * One invocation as the platform counts its limits: a request to the Worker (its `waitUntil` work included), or an
 * event delivered to an object (an RPC call, a fetch, an alarm). An object's subrequests and CPU go to its newest
 * invocation, as the runtime attributes them (workerd's io-context.h: "the newest request that hasn't already
 * completed"), so an invocation of an object runs from its delivery until the next one arrives or the object has
 * nothing left to do. Times are the runtime's `Date.now()` (milliseconds; real time under `wrangler dev`).
 */
export interface InvocationTally {
  id: number;
  /** "worker", or the object's class and name ("ChatSession chat:42"). */
  party: string;
  /** The request's method and path, or the object's method ("enqueue", "alarm"). */
  kind: string;
  startedAt: number;
  /** When the handler's own promise settled (its response was ready); null while it runs. */
  handlerEndedAt: number | null;
  /** When the invocation's work was over (or a newer one of the same object took over); null while it runs. */
  endedAt: number | null;
  external: Record<ExternalKind, number>;
  services: Record<ServiceKind, number>;
}

export const COUNT_NAMES = [
  "workerRequests",
  "doRequests",
  "alarms",
  "doActiveMs",
  "sqlStatements",
  "sqlRowsRead",
  "sqlRowsWritten",
  "storageKeysRead",
  "storageKeysWritten",
  "alarmsSet",
  "alarmsDeleted",
  "d1Calls",
  "d1Statements",
  "d1RowsRead",
  "d1RowsWritten",
  "kvReads",
  "kvWrites",
  "kvDeletes",
  "kvLists",
  "r2ClassA",
  "r2ClassB",
  "r2Free",
] as const satisfies readonly (keyof OperationCounts)[];

export function zeroCounts(): OperationCounts {
  return {
    workerRequests: 0,
    doRequests: 0,
    alarms: 0,
    doActiveMs: 0,
    sqlStatements: 0,
    sqlRowsRead: 0,
    sqlRowsWritten: 0,
    storageKeysRead: 0,
    storageKeysWritten: 0,
    alarmsSet: 0,
    alarmsDeleted: 0,
    d1Calls: 0,
    d1Statements: 0,
    d1RowsRead: 0,
    d1RowsWritten: 0,
    kvReads: 0,
    kvWrites: 0,
    kvDeletes: 0,
    kvLists: 0,
    r2ClassA: 0,
    r2ClassB: 0,
    r2Free: 0,
  };
}
