import {
  type ObjectTally,
  type PartyTally,
  type StatementCounts,
  type TallySnapshot,
  zeroCounts,
} from "../tally-snapshot.ts";
import { invocationsAfter, type ObjectInvocations, objectIdle, unattributed } from "./invocations.ts";

/**
 * The counters of the benchmark's counting wrapper, inside the runtime (the Worker and its Durable Objects share one
 * isolate under `wrangler dev`). The benchmark reads them with `globalThis.__benchTally.snapshot()` through the
 * inspector, so the bot needs no route of its own for it.
 */

/** A Durable Object instance as the wrapper watches it. */
export interface LiveObject {
  tally: ObjectTally;
  /** When the calls under way began (the first of the overlapping ones). */
  activeSince: number;
  /** Its invocations, as the platform counts its limits. */
  invocations: ObjectInvocations;
  /** Promises it passed to `ctx.waitUntil` that have not settled (a drain started by an RPC call that returned). */
  waiting: number;
}

const worker: PartyTally = { ...zeroCounts(), statements: {} };
const objects = new Map<string, LiveObject>();

/**
 * Cursors whose rows are not counted yet: a cursor's figures grow as it is read, and the stores read theirs in the
 * same task that made them (drizzle's `all`, `get` and `run`), so they are counted once that task is over.
 */
const cursors: { party: PartyTally; key: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }[] = [];
let settling = false;

export function workerParty(): PartyTally {
  return worker;
}

/** The object with this id, created on first sight; `name` when the Worker made the id from one. */
export function objectNamed(id: string, className: string, name?: string): LiveObject {
  let live = objects.get(id);
  if (!live) {
    const tally: ObjectTally = { ...zeroCounts(), statements: {}, className, inFlight: 0 };
    const created: LiveObject = {
      tally,
      activeSince: 0,
      invocations: {
        get party() {
          return `${className} ${tally.name ?? id.slice(0, 8)}`;
        },
        current: undefined,
        busy: () => tally.inFlight > 0 || created.waiting > 0,
      },
      waiting: 0,
    };
    live = created;
    objects.set(id, live);
  }
  if (name !== undefined) live.tally.name = name;
  return live;
}

/** One statement, counted by its text; its rows are added as its cursor is read (settled after the current task). */
export function countSql(
  party: PartyTally,
  query: string,
  cursor: SqlStorageCursor<Record<string, SqlStorageValue>>,
): void {
  party.sqlStatements++;
  const key = `sqlite: ${statementKey(query)}`;
  statementOf(party, key).count++;
  cursors.push({ party, key, cursor });
  if (!settling) {
    settling = true;
    queueMicrotask(() => {
      settling = false;
      settleCursors();
    });
  }
}

export function countD1(
  party: PartyTally,
  query: string,
  meta: { rows_read?: number; rows_written?: number } | undefined,
): void {
  party.d1Statements++;
  const read = meta?.rows_read ?? 0;
  const written = meta?.rows_written ?? 0;
  party.d1RowsRead += read;
  party.d1RowsWritten += written;
  const entry = statementOf(party, `d1: ${statementKey(query)}`);
  entry.count++;
  entry.rowsRead += read;
  entry.rowsWritten += written;
}

function statementOf(party: PartyTally, key: string): StatementCounts {
  const entry = party.statements[key] ?? { count: 0, rowsRead: 0, rowsWritten: 0 };
  party.statements[key] = entry;
  return entry;
}

function settleCursors(): void {
  for (const { party, key, cursor } of cursors.splice(0)) {
    party.sqlRowsRead += cursor.rowsRead;
    party.sqlRowsWritten += cursor.rowsWritten;
    const entry = party.statements[key];
    if (entry) {
      entry.rowsRead += cursor.rowsRead;
      entry.rowsWritten += cursor.rowsWritten;
    }
  }
}

/** A statement's text as one line, with runs of placeholders shortened (an IN list of 3 or of 30 is one statement). */
function statementKey(query: string): string {
  return query
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\?\d*(?:\s*,\s*\?\d*)+/g, "?, …")
    .slice(0, 400);
}

/** A promise the object passed to `ctx.waitUntil`: its invocation lasts until it settles. */
export function keptAlive(live: LiveObject, promise: Promise<unknown>): void {
  live.waiting++;
  void promise
    .catch(() => undefined)
    .finally(() => {
      live.waiting--;
      objectIdle(live.invocations);
    });
}

/** Calls into an object (RPC, fetch, alarm) begin and end here: its active wall time is the union of them. */
export function enter(live: LiveObject, method: string): () => void {
  if (method === "alarm") {
    live.tally.alarms++;
    live.tally.alarmAt = undefined;
  }
  if (live.tally.inFlight === 0) live.activeSince = Date.now();
  live.tally.inFlight++;
  let left = false;
  return () => {
    if (left) return;
    left = true;
    live.tally.inFlight--;
    if (live.tally.inFlight === 0) {
      live.tally.doActiveMs += Date.now() - live.activeSince;
      objectIdle(live.invocations);
    }
  };
}

/**
 * `at`: the caller's clock (the runtime's stands still outside a request: `Date.now()` is 0 in global scope);
 * `names`: only these objects (all when absent).
 */
function snapshot(at: number, names?: string[]): string {
  settleCursors();
  const wanted = names ? new Set(names) : undefined;
  const result: TallySnapshot = {
    at,
    worker,
    objects: Object.fromEntries(
      [...objects]
        .filter(([, live]) => !wanted || wanted.has(live.tally.name ?? ""))
        .map(([id, live]) => [id, live.tally]),
    ),
  };
  return JSON.stringify(result);
}

/**
 * Which of the named objects are busy: a call under way, an alarm due within `horizonMs`, or not created yet. Cheap,
 * for polling while CPU is sampled (a snapshot of every statement of every object is not).
 */
function busy(names: string[], now: number, horizonMs: number): string[] {
  const byName = new Map([...objects.values()].map((live) => [live.tally.name, live.tally]));
  return names.filter((name) => {
    const tally = byName.get(name);
    return !tally || tally.inFlight > 0 || (tally.alarmAt !== undefined && tally.alarmAt <= now + horizonMs);
  });
}

/** The invocations after `afterId` (see InvocationTally) as JSON, and how many subrequests no invocation claimed. */
function invocations(afterId: number): string {
  return JSON.stringify({ invocations: invocationsAfter(afterId), unattributed: unattributed.count });
}

/**
 * Makes `globalThis.__benchTally` answer: `snapshot(now, names?)` with the counts as JSON, `busy(names, now,
 * horizonMs)` as above, `invocations(afterId)` with the invocations since that one.
 */
export function exposeTally(): void {
  Object.defineProperty(globalThis, "__benchTally", { value: { snapshot, busy, invocations }, configurable: true });
}
