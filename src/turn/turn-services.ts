import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { EffectiveConfig } from "../config/chat-config.ts";
import type { ConfigReader } from "../config/config-store.ts";
import type { Settings } from "../config/settings.ts";
import type { ChatStore } from "../durable/chat-store.ts";
import type { Env } from "../env.ts";
import type { TelegramClient } from "../telegram/client.ts";
import type { ChatDescription, ChatTarget } from "../telegram/update.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { ActiveRun } from "./active-run.ts";

/** Everything a turn or a command needs from the chat object, passed explicitly rather than reached for. */
export interface TurnServices {
  env: Env;
  settings: Settings;
  store: ChatStore;
  db: DrizzleD1Database;
  telegram: TelegramClient;
  registry: ToolRegistry;
  configs: ConfigReader;
  chatKey: string;
  target: ChatTarget;
  chat: ChatDescription;
  now: () => number;
  /** When the running turn must end (epoch ms), well within the alarm's 15 minutes. */
  turnDeadline: number;
  systemPrompt: (config: EffectiveConfig, toolNames: string[]) => string;
  /** Registers the running turn (one at a time) so /stop and remote tool calls can find it. */
  beginRun: (startedBy: number | undefined) => ActiveRun;
  endRun: (run: ActiveRun) => void;
  /** ADMIN_USER_IDS, or the owner stored by pairing. */
  isAdminUser: (userId: number | undefined) => boolean;
  /** ALLOWED_CHAT_IDS, or a chat approved by pairing. */
  isChatAllowed: (chatId: number) => boolean;
  /** Re-arms a chat's alarm after a change to its scheduled tasks (this chat's, or another's). */
  tasksChanged: (chatId: number, threadId?: number) => Promise<void>;
}
