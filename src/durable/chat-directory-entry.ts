import type { DrizzleD1Database } from "drizzle-orm/d1";
import { recordChatActivity } from "../db/chat-directory.ts";
import { errorText } from "../lib/errors.ts";
import type { ChatStores } from "../store/chat-stores.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import { chatSlot, directoryWrittenSlot, targetSlot } from "./chat-slots.ts";

/** The console's "last activity" is this fresh at worst; a chat that writes often costs one D1 write per interval. */
const DIRECTORY_INTERVAL_MS = 5 * 60 * 1000;

/** Where this chat's answers go, and what it is: kept from its latest message for tasks, helpers and the console. */
export function rememberChat(stores: ChatStores, message: IncomingMessage): void {
  stores.meta.set(
    targetSlot,
    message.threadId === undefined
      ? { chatId: message.chat.id }
      : { chatId: message.chat.id, threadId: message.threadId },
  );
  stores.meta.set(chatSlot, message.chat);
}

/** Keeps the chat's row in the directory the console lists; a failure there never holds up the answer. */
export async function recordInDirectory(
  { stores, db }: { stores: ChatStores; db: DrizzleD1Database },
  message: IncomingMessage,
  now: number,
): Promise<void> {
  const name = message.chat.title ?? (message.chat.type === "private" ? (message.from?.name ?? "") : "");
  const last = stores.meta.get(directoryWrittenSlot);
  if (last && last.name === name && now - last.at < DIRECTORY_INTERVAL_MS) return;
  try {
    await recordChatActivity(db, {
      chatId: message.chat.id,
      type: message.chat.type,
      title: name === "" ? null : name,
      lastActivityAt: now,
    });
    stores.meta.set(directoryWrittenSlot, { at: now, name });
  } catch (error) {
    console.warn("recording the chat in the directory failed", errorText(error));
  }
}
