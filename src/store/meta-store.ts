import { eq, sql } from "drizzle-orm";
import * as schema from "../db/chat-schema.ts";
import type { Slot } from "../lib/slot.ts";
import type { ChatDatabase } from "./chat-database.ts";
import { preparedOnce } from "./statements.ts";

/**
 * A stored value as read: its text (to skip writes that change nothing) and, once a slot has read it, its value
 * parsed by the slot's schema (`undefined` also when the schema refused it).
 */
interface Entry {
  text: string;
  parsed?: { value: unknown };
}

/**
 * The chat's small named values, each in a slot its feature declares (src/lib/slot.ts): storage knows no feature's
 * types. The table is tiny and read many times a turn, so it is read once into memory and written through; a value
 * is checked against its slot's schema when first read. A stored value its schema refuses counts as absent, with a
 * warning: a value that changed shape never crashes a turn.
 */
export class MetaStore {
  private cache: Map<string, Entry> | undefined;
  private readonly statements;

  constructor(database: ChatDatabase) {
    database.onRollback(() => {
      this.cache = undefined;
    });
    const { db } = database;
    const { meta } = schema;
    const placeholder = sql.placeholder;
    this.statements = {
      all: preparedOnce(() => db.select().from(meta).prepare()),
      // Every turn writes the day's spend: built once, as building it was most of its cost.
      upsert: preparedOnce(() =>
        db
          .insert(meta)
          .values({ key: placeholder("key"), value: placeholder("value") })
          .onConflictDoUpdate({ target: meta.key, set: { value: sql`excluded.${sql.identifier("value")}` } })
          .prepare(),
      ),
      // A turn handed to the next one deletes its slot once delivered: every turn.
      remove: preparedOnce(() =>
        db
          .delete(meta)
          .where(eq(meta.key, placeholder("key")))
          .prepare(),
      ),
    };
  }

  /** The database was just created: the table is empty, and nothing needs to read it. */
  knownEmpty(): void {
    this.cache ??= new Map();
  }

  get<T>(slot: Slot<T>): T | undefined {
    const entry = this.entries().get(slot.key);
    if (!entry) return undefined;
    entry.parsed ??= { value: parsed(slot, entry.text) };
    // The value was parsed by this slot's schema (or set from a `T` through it): this is its type.
    return entry.parsed.value as T | undefined;
  }

  set<T>(slot: Slot<T>, value: T): void {
    const text = JSON.stringify(value);
    const entries = this.entries();
    if (entries.get(slot.key)?.text === text) return;
    this.statements.upsert().run({ key: slot.key, value: text });
    entries.set(slot.key, { text, parsed: { value } });
  }

  delete(slot: Slot<unknown>): void {
    const entries = this.entries();
    if (!entries.has(slot.key)) return;
    this.statements.remove().run({ key: slot.key });
    entries.delete(slot.key);
  }

  private entries(): Map<string, Entry> {
    if (this.cache) return this.cache;
    const entries = new Map<string, Entry>();
    for (const row of this.statements.all().all()) entries.set(row.key, { text: row.value });
    this.cache = entries;
    return entries;
  }
}

function parsed<T>(slot: Slot<T>, text: string): T | undefined {
  try {
    const result = slot.schema.safeParse(JSON.parse(text));
    if (result.success) return result.data;
    console.warn(`chat meta "${slot.key}" does not match its schema; treated as absent`);
  } catch {
    console.warn(`chat meta "${slot.key}" is not JSON; treated as absent`);
  }
  return undefined;
}
