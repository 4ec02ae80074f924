import { asc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import * as schema from "../db/chat-schema.ts";
import { chatTargetSchema } from "../telegram/incoming-message.ts";
import type { ChatDatabase } from "./chat-database.ts";
import { orderedLimit, preparedOnce } from "./statements.ts";

/** One message's worth of an answer, as telegram/render.ts makes it: its Markdown, and its Telegram HTML. */
const pieceSchema = z.object({ piece: z.string(), html: z.string().optional() });

/**
 * One call of what is left to deliver: a new message (HTML, or Telegram's Markdown as a rich message), a streamed
 * message's final form (an edit: safe to repeat), or a leftover streamed message to delete (best effort).
 */
const keyboardSchema = z
  .array(z.array(z.object({ text: z.string().max(200), data: z.string().max(64) })).max(8))
  .max(8);

const stepSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("send"),
    piece: pieceSchema,
    replyTo: z.number().int().optional(),
    /** A menu's buttons, under the message. */
    keyboard: keyboardSchema.optional(),
  }),
  /**
   * A photo or a voice message: its bytes are not stored here. They are kept in memory for the first send, then read
   * back from the media bucket by `key`; without either, it is described in words (`described`) rather than lost.
   */
  z.object({
    kind: z.literal("send-photo"),
    /** Sent as a voice message rather than a photo. */
    voice: z.boolean().optional(),
    replyTo: z.number().int().optional(),
    ref: z.string().max(100),
    key: z.string().max(300).optional(),
    fileName: z.string().max(200),
    caption: z.string().max(1024).optional(),
    described: z.string().max(2000),
  }),
  z.object({ kind: z.literal("send-rich"), markdown: z.string(), replyTo: z.number().int().optional() }),
  z.object({ kind: z.literal("edit"), messageId: z.number().int(), piece: pieceSchema }),
  z.object({ kind: z.literal("edit-rich"), messageId: z.number().int(), markdown: z.string() }),
  z.object({ kind: z.literal("delete"), messageId: z.number().int() }),
]);
export type OutboxStep = z.infer<typeof stepSchema>;

/** What one outbox row still has to do, in order, and what a refusal of the rich form falls back to. */
const parcelSchema = z.object({
  target: chatTargetSchema,
  /** A message to another chat than the outbox's own (a cross-chat send): its chat's refusal ends only it. */
  elsewhere: z.boolean().optional(),
  steps: z.array(stepSchema).min(1).max(200),
  /**
   * A rich answer's HTML path: its whole Markdown (and the message its first piece replies to), sent instead while
   * none of its new messages went, after the streamed rich messages it replaces are deleted; once one went, only the
   * rest goes as HTML.
   */
  rich: z
    .object({
      whole: z.string(),
      replyTo: z.number().int().optional(),
      streamed: z.array(z.number().int()),
      sentAny: z.boolean(),
    })
    .optional(),
});
export type OutboxParcel = z.infer<typeof parcelSchema>;

/** What a row holds, for /status and the logs: a turn's answer (a task's too), a notice, a helper's report. */
export type OutboxKind = (typeof schema.outbox.kind.enumValues)[number];

export type OutboxItem =
  | {
      id: number;
      kind: OutboxKind;
      parcel: OutboxParcel;
      createdAt: number;
      attempts: number;
      nextTryAt: number;
      holdUntil: number | undefined;
      uncertain: number;
    }
  | { id: number; kind: "unreadable"; problem: string; createdAt: number };

/** How a try that did not get through leaves a row. */
export interface Postponement {
  nextTryAt: number;
  /** Telegram's `retry_after`: no try before then, even one brought forward. */
  holdUntil?: number;
  error: string;
  /** Sends of the next step whose fate is unknown, this try's included. */
  uncertain: number;
}

/**
 * The chat's outbox, as plain rows: added at the back, tried from the front (one at a time, in order), advanced as
 * steps go through, postponed, removed. Rows are read back through their schema; one no schema reads comes back as
 * unreadable, for the caller to drop.
 */
export class OutboxStore {
  private readonly statements;
  /**
   * When the front row is tried next (`null`: the outbox is empty; `undefined`: not known, read it). Only this store
   * writes the table and its object is single-threaded, so the answer to "does anything wait?", asked several times a
   * turn and almost always "no", is kept instead of read again. A write that could change it forgets it.
   */
  private front: number | null | undefined;

  constructor(private readonly database: ChatDatabase) {
    const { db } = database;
    const { outbox } = schema;
    this.statements = {
      head: preparedOnce(() =>
        db
          .select()
          .from(outbox)
          .orderBy(orderedLimit(asc(outbox.id), 1))
          .prepare(),
      ),
      summary: preparedOnce(() =>
        db
          .select({ waiting: sql<number>`count(*)`, oldestAt: sql<number | null>`min(${outbox.createdAt})` })
          .from(outbox)
          .prepare(),
      ),
    };
  }

  add(kind: OutboxKind, parcel: OutboxParcel, now: number, postponed?: Postponement & { attempts: number }): number {
    const [row] = this.database.db
      .insert(schema.outbox)
      .values({
        kind,
        payload: JSON.stringify(parcel),
        createdAt: now,
        attempts: postponed?.attempts ?? 0,
        nextTryAt: postponed?.nextTryAt ?? now,
        holdUntil: postponed?.holdUntil ?? null,
        uncertain: postponed?.uncertain ?? 0,
        lastError: postponed?.error ?? null,
      })
      .returning({ id: schema.outbox.id })
      .all();
    // A row added to an empty outbox is its front; behind others it changes nothing.
    if (this.front === null) this.front = Math.max(postponed?.nextTryAt ?? now, postponed?.holdUntil ?? 0);
    return row!.id;
  }

  /** The row tried next: the oldest. */
  head(): OutboxItem | undefined {
    if (this.front === null) return undefined;
    const row = this.statements.head().all()[0];
    this.front = row === undefined ? null : Math.max(row.nextTryAt, row.holdUntil ?? 0);
    if (row === undefined) return undefined;
    const parcel = parcelOf(row.payload);
    if (typeof parcel === "string")
      return { id: row.id, kind: "unreadable", problem: parcel, createdAt: row.createdAt };
    return {
      id: row.id,
      kind: row.kind,
      parcel,
      createdAt: row.createdAt,
      attempts: row.attempts,
      nextTryAt: row.nextTryAt,
      holdUntil: row.holdUntil ?? undefined,
      uncertain: row.uncertain,
    };
  }

  /** How many rows wait, since when, and when the first is tried next. */
  summary(): { waiting: number; oldestAt?: number; nextTryAt?: number } {
    if (this.front === null) return { waiting: 0 };
    const { waiting, oldestAt } = this.statements.summary().all()[0] ?? { waiting: 0, oldestAt: null };
    if (waiting === 0 || oldestAt === null) return { waiting: 0 };
    const head = this.statements.head().all()[0];
    return { waiting, oldestAt, ...(head ? { nextTryAt: Math.max(head.nextTryAt, head.holdUntil ?? 0) } : {}) };
  }

  /** The object's database was just created: the outbox is empty, and the first question needs no read. */
  knownEmpty(): void {
    this.front = null;
  }

  /** The front row's next try, if any row waits. */
  nextTryAt(): number | undefined {
    if (this.front === undefined) {
      const head = this.statements.head().all()[0];
      this.front = head === undefined ? null : Math.max(head.nextTryAt, head.holdUntil ?? 0);
    }
    return this.front ?? undefined;
  }

  /** A step went through: what is left replaces the row's payload, and the next step starts with no unknown sends. */
  advance(id: number, parcel: OutboxParcel): void {
    this.update(id, { payload: JSON.stringify(parcel), uncertain: 0 });
  }

  /**
   * A send of the front step is about to go out: counted as one of unknown fate until it is known, so that an
   * object that dies during it finds it counted.
   */
  sending(id: number, uncertain: number): void {
    this.update(id, { uncertain });
  }

  postpone(id: number, postponement: Postponement): void {
    this.front = undefined;
    const { outbox } = schema;
    this.database.db
      .update(outbox)
      .set({
        attempts: sql`${outbox.attempts} + 1`,
        nextTryAt: postponement.nextTryAt,
        holdUntil: postponement.holdUntil ?? null,
        uncertain: postponement.uncertain,
        lastError: postponement.error.slice(0, 300),
      })
      .where(eq(outbox.id, id))
      .run();
  }

  /** Brings the front row's next try forward to `now` (its hold, Telegram's retry_after, still applies). */
  tryNow(now: number): void {
    if (this.front === null) return;
    this.front = undefined;
    const head = this.statements.head().all()[0];
    if (head && head.nextTryAt > now) this.update(head.id, { nextTryAt: now });
  }

  remove(id: number): void {
    this.front = undefined;
    this.database.db.delete(schema.outbox).where(eq(schema.outbox.id, id)).run();
  }

  /** Everything waiting, removed at once (Telegram refuses the chat itself); returns how many rows went. */
  clear(): number {
    // Not `null`: a transaction that rolls this back would leave rows an empty answer hides.
    this.front = undefined;
    return this.database.db.delete(schema.outbox).returning({ id: schema.outbox.id }).all().length;
  }

  private update(id: number, values: Partial<typeof schema.outbox.$inferInsert>): void {
    if (values.nextTryAt !== undefined || values.holdUntil !== undefined) this.front = undefined;
    this.database.db.update(schema.outbox).set(values).where(eq(schema.outbox.id, id)).run();
  }
}

/** A row's payload read back through its schema, or why it cannot be. */
function parcelOf(payload: string): OutboxParcel | string {
  try {
    const parsed = parcelSchema.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : "its payload does not match the current schema";
  } catch {
    return "its payload is not JSON";
  }
}
