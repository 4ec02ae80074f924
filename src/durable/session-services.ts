import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { ToolOutcome } from "../adapters/types.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import type { ConfigReader } from "../config/config-store.ts";
import type { Settings } from "../config/settings.ts";
import type { Env } from "../env.ts";
import type { TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/update.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { ChatStore } from "./chat-store.ts";

/** What the chat object knows about its chat, refreshed from each message. */
export interface ChatDescription {
  id: number;
  type: "private" | "group" | "supergroup";
  title?: string;
  isForum: boolean;
}

/** A turn that is running: its abort switch and the secret a remote runner presents to call tools back. */
export interface ActiveRun {
  /** Made on first use: only turns whose tools run remotely need one. */
  token: () => string;
  /** The token, if one was made. */
  issuedToken: () => string | undefined;
  controller: AbortController;
  /** Set once the turn knows the chat's tools; remote tool calls go through it. */
  execute: (name: string, argumentsText: string) => Promise<ToolOutcome>;
}

/** Everything a turn or a command needs from the chat object, passed explicitly rather than reached for. */
export interface SessionServices {
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
  beginRun: () => ActiveRun;
  endRun: (run: ActiveRun) => void;
  /** Re-arms the object's alarm after a change to this chat's scheduled tasks. */
  tasksChanged: (chatId: number, threadId?: number) => Promise<void>;
}
