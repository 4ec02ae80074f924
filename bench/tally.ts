import * as z from "zod";
import type { Inspector } from "./inspector.ts";
import {
  COUNT_NAMES,
  EXTERNAL_KINDS,
  type InvocationTally,
  type ObjectTally,
  type OperationCounts,
  type PartyTally,
  SERVICE_KINDS,
  type StatementCounts,
  type TallySnapshot,
  zeroCounts,
} from "./tally-snapshot.ts";

/** Reading the counting wrapper's tallies (bench/workerd/) out of the runtime, and doing sums with them. */

const counts = {
  workerRequests: z.number(),
  doRequests: z.number(),
  alarms: z.number(),
  doActiveMs: z.number(),
  sqlStatements: z.number(),
  sqlRowsRead: z.number(),
  sqlRowsWritten: z.number(),
  storageKeysRead: z.number(),
  storageKeysWritten: z.number(),
  alarmsSet: z.number(),
  alarmsDeleted: z.number(),
  d1Calls: z.number(),
  d1Statements: z.number(),
  d1RowsRead: z.number(),
  d1RowsWritten: z.number(),
  kvReads: z.number(),
  kvWrites: z.number(),
  kvDeletes: z.number(),
  kvLists: z.number(),
  r2ClassA: z.number(),
  r2ClassB: z.number(),
  r2Free: z.number(),
};
const statements = z.record(z.string(), z.object({ count: z.number(), rowsRead: z.number(), rowsWritten: z.number() }));
const party = z.object({ ...counts, statements });
const snapshotSchema = z.object({
  at: z.number(),
  worker: party,
  objects: z.record(
    z.string(),
    party.extend({
      className: z.string(),
      name: z.string().optional(),
      inFlight: z.number(),
      alarmAt: z.number().optional(),
    }),
  ),
}) satisfies z.ZodType<TallySnapshot>;

/** The counts so far: of the Worker and every object, or of the Worker and the given chats' objects. */
export async function readTally(inspector: Inspector, chats?: number[]): Promise<TallySnapshot> {
  const names = chats ? `, ${JSON.stringify(chats.map((chatId) => `chat:${chatId}`))}` : "";
  const json = await inspector.evaluate(`globalThis.__benchTally.snapshot(${Date.now()}${names})`);
  if (typeof json !== "string")
    throw new Error("the runtime has no counting wrapper (start it with the counting entry)");
  return snapshotSchema.parse(JSON.parse(json));
}

/** The object a chat's messages go to. */
export function chatObject(snapshot: TallySnapshot, chatId: number): ObjectTally | undefined {
  return Object.values(snapshot.objects).find((object) => object.name === `chat:${chatId}`);
}

/** Everything: the Worker and every object. */
export function totalOf(snapshot: TallySnapshot): PartyTally {
  return sumParties([snapshot.worker, ...Object.values(snapshot.objects)]);
}

export function sumParties(parties: PartyTally[]): PartyTally {
  const total: PartyTally = { ...zeroCounts(), statements: {} };
  for (const part of parties) {
    for (const name of COUNT_NAMES) total[name] += part[name];
    for (const [key, entry] of Object.entries(part.statements)) addStatement(total.statements, key, entry, 1);
  }
  return total;
}

/** What happened between two snapshots of one party (a party absent before counts from zero). */
export function since(after: PartyTally | undefined, before: PartyTally | undefined): PartyTally {
  const result: PartyTally = { ...zeroCounts(), statements: {} };
  if (!after) return result;
  for (const name of COUNT_NAMES) result[name] = after[name] - (before?.[name] ?? 0);
  for (const [key, entry] of Object.entries(after.statements)) addStatement(result.statements, key, entry, 1);
  for (const [key, entry] of Object.entries(before?.statements ?? {})) addStatement(result.statements, key, entry, -1);
  for (const [key, entry] of Object.entries(result.statements)) if (entry.count === 0) delete result.statements[key];
  return result;
}

function addStatement(into: Record<string, StatementCounts>, key: string, entry: StatementCounts, sign: 1 | -1): void {
  const target = into[key] ?? { count: 0, rowsRead: 0, rowsWritten: 0 };
  into[key] = target;
  target.count += sign * entry.count;
  target.rowsRead += sign * entry.rowsRead;
  target.rowsWritten += sign * entry.rowsWritten;
}

export function countsOf(party: PartyTally): OperationCounts {
  const result = zeroCounts();
  for (const name of COUNT_NAMES) result[name] = party[name];
  return result;
}

/**
 * Waits for chats' objects to come to rest: nothing under way and no alarm due within `horizonMs` (a usage flush set a
 * second ahead is waited for; a task due tomorrow is not). One poll at a time serves every waiting chat, through a
 * cheap call into the runtime, so that waiting adds next to nothing to the CPU being sampled.
 */
export class RestWatcher {
  /** By horizon, then by object name: who waits. */
  private readonly waiting = new Map<number, Map<string, Waiter[]>>();
  private polling: Promise<void> | undefined;
  private readonly inspector: Inspector;
  private readonly horizonMs: number;

  constructor(inspector: Inspector, horizonMs = 5_000) {
    this.inspector = inspector;
    this.horizonMs = horizonMs;
  }

  /** Until the chat's object is at rest; `horizonMs` 0: only nothing under way and no alarm due now. */
  until(chatId: number, horizonMs = this.horizonMs, timeoutMs = 60_000): Promise<void> {
    const name = `chat:${chatId}`;
    return new Promise((resolve, reject) => {
      const byName = this.waiting.get(horizonMs) ?? new Map<string, Waiter[]>();
      this.waiting.set(horizonMs, byName);
      byName.set(name, [...(byName.get(name) ?? []), { resolve, reject, deadline: Date.now() + timeoutMs }]);
      this.keepPolling();
    });
  }

  private keepPolling(): void {
    this.polling ??= this.poll().finally(() => {
      this.polling = undefined;
      // A wait asked for just as the poll ended (by a waiter it had just released) would otherwise never be polled.
      if (this.waiting.size > 0) this.keepPolling();
    });
  }

  all(chatIds: number[]): Promise<void> {
    return Promise.all(chatIds.map((chatId) => this.until(chatId))).then(() => undefined);
  }

  private async poll(): Promise<void> {
    while (this.waiting.size > 0) {
      for (const [horizon, byName] of [...this.waiting]) {
        const names = [...byName.keys()];
        const answer = await this.inspector.evaluate(
          `JSON.stringify(globalThis.__benchTally.busy(${JSON.stringify(names)}, ${Date.now()}, ${horizon}))`,
        );
        const busy = new Set(z.array(z.string()).parse(JSON.parse(String(answer))));
        for (const name of names) {
          const waiters = byName.get(name) ?? [];
          const late = busy.has(name) ? waiters.filter((waiter) => Date.now() > waiter.deadline) : waiters;
          for (const waiter of late) {
            if (busy.has(name)) waiter.reject(new Error(`${name} was still busy when the wait ran out`));
            else waiter.resolve();
          }
          const left = waiters.filter((waiter) => !late.includes(waiter));
          if (left.length > 0) byName.set(name, left);
          else byName.delete(name);
        }
        if (byName.size === 0) this.waiting.delete(horizon);
      }
      if (this.waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, 40));
    }
  }
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
  deadline: number;
}

const externalCounts = z.object(Object.fromEntries(EXTERNAL_KINDS.map((name) => [name, z.number()])));
const serviceCounts = z.object(Object.fromEntries(SERVICE_KINDS.map((name) => [name, z.number()])));
const invocationsSchema = z.object({
  invocations: z.array(
    z.object({
      id: z.number(),
      party: z.string(),
      kind: z.string(),
      startedAt: z.number(),
      handlerEndedAt: z.number().nullable(),
      endedAt: z.number().nullable(),
      external: externalCounts,
      services: serviceCounts,
    }),
  ),
  unattributed: z.number(),
});

/**
 * The invocations the counting wrapper saw after the one numbered `afterId` (see InvocationTally), and how many
 * subrequests it could not give to any invocation (0 unless the wrapper has a gap).
 */
export async function readInvocations(
  inspector: Inspector,
  afterId = 0,
): Promise<{ invocations: InvocationTally[]; unattributed: number }> {
  const json = await inspector.evaluate(`globalThis.__benchTally.invocations(${afterId})`);
  if (typeof json !== "string")
    throw new Error("the runtime has no counting wrapper (start it with the counting entry)");
  return invocationsSchema.parse(JSON.parse(json)) as { invocations: InvocationTally[]; unattributed: number };
}
