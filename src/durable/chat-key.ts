import type { Env } from "../env.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";

/** Exactly the keys chatKeyOf writes: no leading zeros, no "-0", so one chat never has two names. */
const CHAT_KEY = /^chat:(0|-?[1-9]\d{0,15})(?::topic:([1-9]\d{0,15}))?$/;

/** The name of a chat's object: one per chat, and one per topic in forum supergroups. */
export function chatKeyOf(target: ChatTarget): string {
  return target.threadId === undefined ? `chat:${target.chatId}` : `chat:${target.chatId}:topic:${target.threadId}`;
}

/** The chat (and topic) a key names, or undefined for anything `chatKeyOf` cannot have made. */
export function parseChatKey(key: string): ChatTarget | undefined {
  const match = CHAT_KEY.exec(key);
  if (!match) return undefined;
  const chatId = Number(match[1]);
  const threadId = match[2] === undefined ? undefined : Number(match[2]);
  if (!Number.isSafeInteger(chatId) || (threadId !== undefined && !Number.isSafeInteger(threadId))) return undefined;
  return threadId === undefined ? { chatId } : { chatId, threadId };
}

/** The chat's object (its type comes from the binding's, so this module needs no import of the class). */
export function chatStub(env: Env, target: ChatTarget) {
  return env.CHAT_SESSION.get(env.CHAT_SESSION.idFromName(chatKeyOf(target)));
}
