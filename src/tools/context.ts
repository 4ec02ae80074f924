import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type { Env } from "../env.ts";

/** Who is asking and where: every tool handler gets this, and scopes all its data by `chatId`. */
export interface ToolContext {
  chatId: number;
  /** The forum topic the turn runs in, if any; answers and task runs go back there. */
  threadId: number | undefined;
  userId: number | undefined;
  /** The chat is listed in ADMIN_CHAT_IDS and may act on other allowed chats. */
  isAdminChat: boolean;
  env: Env;
  db: DrizzleD1Database;
  timezone: string;
  now: () => number;
  isChatAllowed: (chatId: number) => boolean;
  /** Sends Markdown to a chat now, during the turn. */
  sendMessage: (target: { chatId: number; threadId?: number }, text: string) => Promise<void>;
  /** Tells a chat's (or forum topic's) object that its scheduled tasks changed, so it re-arms its alarm. */
  tasksChanged: (chatId: number, threadId?: number) => Promise<void>;
}

export function database(env: Env): DrizzleD1Database {
  return drizzle(env.DB);
}
