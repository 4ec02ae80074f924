import type { DirectoryEntry } from "../db/chat-directory.ts";
import type { ChatStores } from "../store/chat-stores.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import { chatSlot, directoryWrittenSlot, targetSlot } from "./chat-slots.ts";

/** The console's "last activity" is this fresh at worst; a chat that writes often costs one D1 row per interval. */
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

/**
 * Queues the chat's row for the directory the console lists (its first message, a new name, then at most every five
 * minutes): it is written with the chat's next batch of usage records (D1Flush), one D1 round trip for both, instead of
 * a write of its own in the turn. A chat shows in the console within USAGE_FLUSH_SECONDS of its first message.
 */
export function queueDirectoryRow(stores: ChatStores, message: IncomingMessage, now: number): void {
  const name = message.chat.title ?? (message.chat.type === "private" ? (message.from?.name ?? "") : "");
  const last = stores.meta.get(directoryWrittenSlot);
  if (last && last.name === name && now - last.at < DIRECTORY_INTERVAL_MS) return;
  stores.meta.set(directoryWrittenSlot, { at: now, name, due: true });
}

/** The directory row waiting for the next flush, if one does (the chat is the one its latest message came from). */
export function dueDirectoryRow(stores: ChatStores): DirectoryEntry | undefined {
  const written = stores.meta.get(directoryWrittenSlot);
  const chat = stores.meta.get(chatSlot);
  if (!written?.due || !chat) return undefined;
  return {
    chatId: chat.id,
    type: chat.type,
    title: written.name === "" ? null : written.name,
    lastActivityAt: written.at,
  };
}

/** The flush wrote `row`: it is no longer due, unless a newer one was queued while D1 was written. */
export function directoryRowWritten(stores: ChatStores, row: DirectoryEntry): void {
  const written = stores.meta.get(directoryWrittenSlot);
  if (written?.due && written.at === row.lastActivityAt)
    stores.meta.set(directoryWrittenSlot, { at: written.at, name: written.name });
}
