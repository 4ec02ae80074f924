import { desc } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { chats } from "./d1-schema.ts";

export type DirectoryEntry = typeof chats.$inferSelect;

/** Records that a chat wrote: its type, its name (a group's title, a person's name) and when. */
export async function recordChatActivity(db: DrizzleD1Database, entry: DirectoryEntry): Promise<void> {
  await db
    .insert(chats)
    .values(entry)
    .onConflictDoUpdate({
      target: chats.chatId,
      set: { type: entry.type, title: entry.title, lastActivityAt: entry.lastActivityAt },
    });
}

/** The chats that wrote most recently first, at most `limit`. */
export async function listChatDirectory(db: DrizzleD1Database, limit = 500): Promise<DirectoryEntry[]> {
  return db.select().from(chats).orderBy(desc(chats.lastActivityAt)).limit(limit);
}
