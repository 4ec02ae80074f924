import { desc, eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { chats } from "./d1-schema.ts";

export type DirectoryEntry = typeof chats.$inferSelect;

/** The statement that records that a chat wrote: its type, its name (a group's title, a person's name) and when. */
export function directoryUpsert(db: DrizzleD1Database, entry: DirectoryEntry) {
  return db
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

/** A chat's name as it last wrote (a group's title, a person's name), if it ever wrote. */
export async function chatTitleOf(db: DrizzleD1Database, chatId: number): Promise<string | undefined> {
  const [row] = await db.select({ title: chats.title }).from(chats).where(eq(chats.chatId, chatId)).limit(1);
  return row?.title ?? undefined;
}
