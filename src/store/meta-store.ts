import { eq, sql } from "drizzle-orm";
import * as schema from "../db/chat-schema.ts";
import type { ChatDatabase } from "./chat-database.ts";
import { type ChatMeta, type ChatMetaKey, chatMetaSchemas } from "./chat-meta.ts";
import { preparedOnce } from "./statements.ts";

/** A stored value as read: its text (to skip writes that change nothing) and its value, parsed by its key's schema. */
interface Entry {
  text: string;
  value: unknown;
}

/**
 * The chat's small named values. The table is tiny and read many times a turn, so it is read once into memory
 * (each value checked against its key's schema there) and written through. A stored value its schema refuses
 * counts as absent, with a warning: a value that changed shape never crashes a turn.
 */
export class MetaStore {
  private cache: Map<ChatMetaKey, Entry> | undefined;
  private readonly statements;

  constructor(private readonly database: ChatDatabase) {
    database.onRollback(() => {
      this.cache = undefined;
    });
    const { db } = database;
    const { meta } = schema;
    const placeholder = sql.placeholder;
    this.statements = preparedOnce(() => ({
      all: db.select().from(meta).prepare(),
      // Every turn writes the day's spend: built once, as building it was most of its cost.
      upsert: db
        .insert(meta)
        .values({ key: placeholder("key"), value: placeholder("value") })
        .onConflictDoUpdate({ target: meta.key, set: { value: sql`excluded.${sql.identifier("value")}` } })
        .prepare(),
    }));
  }

  get<Key extends ChatMetaKey>(key: Key): ChatMeta[Key] | undefined {
    // Every entry under `key` was parsed by `chatMetaSchemas[key]` (or set from a `ChatMeta[Key]`): this is its type.
    return this.entries().get(key)?.value as ChatMeta[Key] | undefined;
  }

  set<Key extends ChatMetaKey>(key: Key, value: ChatMeta[Key]): void {
    const text = JSON.stringify(value);
    const entries = this.entries();
    if (entries.get(key)?.text === text) return;
    this.statements().upsert.run({ key, value: text });
    entries.set(key, { text, value });
  }

  delete(key: ChatMetaKey): void {
    const entries = this.entries();
    if (!entries.has(key)) return;
    this.database.db.delete(schema.meta).where(eq(schema.meta.key, key)).run();
    entries.delete(key);
  }

  private entries(): Map<ChatMetaKey, Entry> {
    if (this.cache) return this.cache;
    const entries = new Map<ChatMetaKey, Entry>();
    for (const row of this.statements().all.all()) {
      if (!isMetaKey(row.key)) continue;
      const value = parsed(row.key, row.value);
      if (value !== undefined) entries.set(row.key, { text: row.value, value });
    }
    this.cache = entries;
    return entries;
  }
}

function parsed(key: ChatMetaKey, text: string): unknown {
  try {
    const result = chatMetaSchemas[key].safeParse(JSON.parse(text));
    if (result.success) return result.data;
    console.warn(`chat meta "${key}" does not match its schema; treated as absent`);
  } catch {
    console.warn(`chat meta "${key}" is not JSON; treated as absent`);
  }
  return undefined;
}

function isMetaKey(key: string): key is ChatMetaKey {
  return Object.hasOwn(chatMetaSchemas, key);
}
