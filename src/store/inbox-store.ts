import { and, asc, count, eq, inArray, lt, sql } from "drizzle-orm";
import * as schema from "../db/chat-schema.ts";
import type { ChatDatabase } from "./chat-database.ts";
import { orderedLimit, preparedOnce, preparedPer } from "./statements.ts";

/** The kinds of row the inbox table takes (its column's enum). */
export type InboxKind = (typeof schema.inbox.kind.enumValues)[number];

/** A row no schema of the current version reads (written by another one), and why. */
export type Unreadable = { kind: "unreadable"; problem: string };

/**
 * What the inbox holds is its users' business (src/turn/inbox-entries.ts): each entry has a kind, and the codec says
 * what of it is stored and how a row's JSON is read back, through the schema of its kind.
 */
export interface InboxCodec<Entry extends { kind: InboxKind }> {
  payloadOf(entry: Entry): unknown;
  entryOf(kind: InboxKind, json: unknown): Entry | Unreadable;
}

/** A taken row: its entry, or (a row written by another version that no schema reads now) why it cannot be read. */
export type InboxItem<Entry> = (Entry | Unreadable) & { id: number; attempts: number };

/** Rows older than this are pruned once finished; Telegram stops redelivering an update long before. */
const FINISHED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const WAITING = ["pending", "processing"] as const;

/**
 * The durable queue between the webhook and the alarm: one row per update (or due task), keyed so that a
 * redelivered update is a no-op, taken in arrival order and marked done or failed.
 */
export class InboxStore<Entry extends { kind: InboxKind }> {
  private readonly statements;
  private readonly takeWaiting;
  /**
   * How many rows wait (pending, or processing by this or a dead run), when known: asked at every alarm, webhook and
   * turn's end, and only this store writes the inbox, so the count follows its own writes instead of a read each time.
   * A rolled-back write forgets it.
   */
  private waiting: number | undefined;
  /** Rows this store took (or wrote as taken) and has not finished since: finishing one is one row fewer waiting. */
  private readonly taken = new Set<number>();
  /**
   * The entries this store wrote and has not taken yet, by row id: a take returns them as they were given instead of
   * parsing its own JSON back through the schemas (a fortieth of a plain turn's CPU). Rows written by an earlier life
   * of the object, or before a rollback, are read back as stored.
   */
  private readonly written = new Map<number, Entry>();

  constructor(
    database: ChatDatabase,
    private readonly codec: InboxCodec<Entry>,
  ) {
    database.onRollback(() => {
      this.waiting = undefined;
      this.taken.clear();
      this.written.clear();
    });
    const { db } = database;
    const { inbox } = schema;
    const placeholder = sql.placeholder;
    this.statements = {
      enqueue: preparedOnce(() =>
        db
          .insert(inbox)
          .values({
            key: placeholder("key"),
            kind: placeholder("kind"),
            payload: placeholder("payload"),
            status: sql`${placeholder("status")}`,
            attempts: sql`${placeholder("attempts")}`,
            receivedAt: placeholder("now"),
          })
          .onConflictDoNothing()
          .returning({ id: inbox.id })
          .prepare(),
      ),
      countWaiting: preparedOnce(() =>
        db
          .select({ count: count() })
          .from(inbox)
          .where(inArray(inbox.status, [...WAITING]))
          .prepare(),
      ),
      finishOne: preparedOnce(() =>
        db
          .update(inbox)
          .set({
            status: sql`${placeholder("status")}`,
            finishedAt: sql`${placeholder("now")}`,
            error: sql`${placeholder("error")}`,
          })
          .where(eq(inbox.id, placeholder("id")))
          .prepare(),
      ),
      // Once an hour per object, and once in every object woken for a turn: built once.
      pruneFinished: preparedOnce(() =>
        db
          .delete(inbox)
          .where(and(inArray(inbox.status, ["done", "failed"]), lt(inbox.receivedAt, placeholder("before"))))
          .prepare(),
      ),
      eraseOne: preparedOnce(() =>
        db
          .update(inbox)
          .set({ payload: "{}" })
          .where(eq(inbox.id, placeholder("id")))
          .prepare(),
      ),
    };
    // One statement marks the first waiting rows taken and returns them: atomic without a transaction, and it binds
    // the same parameters however many rows it takes. Rows taken as they were written (a JSON array of their ids)
    // have their attempt counted already.
    this.takeWaiting = preparedPer((limit: number) =>
      db
        .update(inbox)
        .set({
          status: "processing",
          attempts: sql`${inbox.attempts} + (${inbox.id} not in (select value from json_each(${placeholder("counted")})))`,
        })
        .where(
          inArray(
            inbox.id,
            db
              .select({ id: inbox.id })
              .from(inbox)
              .where(inArray(inbox.status, [...WAITING]))
              .orderBy(orderedLimit(asc(inbox.id), limit)),
          ),
        )
        .returning()
        .prepare(),
    );
  }

  /**
   * The new row's id, or undefined when the key was seen before: a redelivered update is a no-op. With `taken`, the row
   * is written as taken, its first attempt counted, for a drain that starts at once and takes it next: the take then
   * costs no statement (and no write of its own in the object's storage, which commits each event that writes). A
   * row taken so and never handed out (the object died first) is taken again like any row of a dead run.
   */
  enqueue(key: string, entry: Entry, now: number, taken = false): number | undefined {
    const payload = JSON.stringify(this.codec.payloadOf(entry));
    const row = taken ? { status: "processing", attempts: 1 } : { status: "pending", attempts: 0 };
    const id = this.statements.enqueue().all({ key, kind: entry.kind, payload, now, ...row })[0]?.id;
    if (id === undefined) return undefined;
    if (this.waiting !== undefined) this.waiting += 1;
    this.written.set(id, entry);
    if (taken) this.taken.add(id);
    return id;
  }

  /** The object's database was just created: nothing waits, and the first question needs no read. */
  knownEmpty(): void {
    this.waiting = 0;
  }

  hasPending(): boolean {
    this.waiting ??= this.statements.countWaiting().all()[0]?.count ?? 0;
    return this.waiting > 0;
  }

  /**
   * Everything waiting, in arrival order, marked as being processed. Rows still marked `processing` belong to a run
   * that died (alarms never overlap within one object), or were taken as they were written; the first are taken
   * again, with their attempt counted.
   */
  takePending(limit = 100): InboxItem<Entry>[] {
    // Known first: an UPDATE that changes nothing still opens (and commits) a write transaction in the object's
    // SQLite, and every drain ends by finding nothing more.
    if (!this.hasPending()) return [];
    const takenAtWrite = this.takenAtWrite();
    // All that waits was taken as it was written: handed out as given, with no statement.
    if (takenAtWrite.length > 0 && takenAtWrite.length === this.waiting && takenAtWrite.length <= limit) {
      return takenAtWrite.map(([id, entry]) => {
        this.handedOut(id);
        return { id, attempts: 1, ...entry };
      });
    }
    const counted = JSON.stringify(takenAtWrite.map(([id]) => id));
    const rows = this.takeWaiting(limit).all({ counted });
    // Every waiting row is taken (processing ones too), so what was taken is all that waits, unless the limit cut it.
    this.waiting = rows.length < limit ? rows.length : undefined;
    return rows
      .sort((left, right) => left.id - right.id)
      .map((row) => {
        const entry = this.written.get(row.id) ?? this.entryOf(row.kind, row.payload);
        this.handedOut(row.id);
        return { id: row.id, attempts: row.attempts, ...entry };
      });
  }

  /**
   * Rows written as taken (see `enqueue`) and not handed out yet, in arrival order: of the entries this store still
   * holds, the ones it counts as taken (a take hands an entry out and lets go of it). Their attempt is counted.
   */
  private takenAtWrite(): [number, Entry][] {
    return [...this.written].filter(([id]) => this.taken.has(id)).sort(([left], [right]) => left - right);
  }

  /** A row's payload, read back through the codec. */
  private entryOf(kind: InboxKind, payload: string): Entry | Unreadable {
    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      return { kind: "unreadable", problem: "its payload is not JSON" };
    }
    return this.codec.entryOf(kind, json);
  }

  private handedOut(id: number): void {
    this.taken.add(id);
    this.written.delete(id);
  }

  finish(ids: readonly number[], now: number, error?: string): void {
    const status = error === undefined ? "done" : "failed";
    for (const id of ids) {
      this.statements.finishOne().run({ id, status, now, error: error ?? null });
      this.written.delete(id);
      // A row this store took was waiting; of any other it cannot say, so the next question reads the count.
      if (this.taken.delete(id) && this.waiting !== undefined) this.waiting -= 1;
      else this.waiting = undefined;
    }
  }

  /** Blanks rows' payloads (their key stays, so a redelivery is still a no-op): a guest query keeps nothing. */
  erase(ids: readonly number[]): void {
    for (const id of ids) {
      this.statements.eraseOne().run({ id });
      this.written.delete(id);
    }
  }

  pruneFinished(now: number): void {
    this.statements.pruneFinished().run({ before: now - FINISHED_RETENTION_MS });
  }
}
