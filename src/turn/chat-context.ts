import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { ChatAccess } from "../access/chat-access.ts";
import type { PairingAccess } from "../access/pairing-access.ts";
import type { AdapterSources } from "../adapters/index.ts";
import type { ServedModelSources } from "../adapters/served-models.ts";
import type { ConfigProblemsStore } from "../config/config-problems.ts";
import type { ConfigReader } from "../config/config-store.ts";
import type { RetiredModelsStore } from "../config/retired-models.ts";
import type { Settings } from "../config/settings.ts";
import type { HelperJob } from "../helpers/helper-job.ts";
import type { SubrequestAllowance } from "../lib/subrequest-meter.ts";
import type { McpOpener } from "../mcp/chat-mcp.ts";
import type { IngestServices } from "../media/ingest.ts";
import type { GeneratedStore } from "../media/services.ts";
import type { SpeakerChoice } from "../media/speech.ts";
import type { Outbox } from "../reply/outbox.ts";
import type { TurnSkills } from "../skills/skill.ts";
import type { ChatStores } from "../store/chat-stores.ts";
import type { TelegramClient } from "../telegram/client.ts";
import type { ChatDescription, ChatTarget } from "../telegram/incoming-message.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { SemanticIndex } from "../tools/semantic-index.ts";
import type { RunSlot } from "./active-run.ts";
import type { InboxEntry } from "./inbox-entries.ts";
import type { ReplyTail } from "./reply-tail.ts";

/** Re-arms a chat's alarm after a change to its scheduled tasks (this chat's, or another's). */
interface TaskAlarm {
  changed(chatId: number, threadId?: number): Promise<void>;
}

/** The background helpers' own objects: a new one's id, starting one with its job, and stopping one. */
export interface HelperLauncher {
  newId(): string;
  start(job: HelperJob): Promise<void>;
  /** "unknown" when the helper's object has no job (it reported already). */
  stop(id: string): Promise<"stopping" | "unknown">;
}

/** A chat's skills as its turns get them (cached by the chat's object), and a way to read them afresh after a change. */
interface SkillReader {
  forChat(chatId: number): Promise<TurnSkills>;
  forget(): void;
}

/**
 * Everything a turn or a command works with, handed over by the chat's object for one batch of work (as grammY hands
 * a handler its `Context`): the chat, its state, its clients, who counts as what, and its one running turn.
 */
export interface ChatContext {
  /** The bot's settings, read once for the batch. */
  settings: Settings;
  stores: ChatStores<InboxEntry>;
  db: DrizzleD1Database;
  telegram: TelegramClient;
  /**
   * The chat's final messages (answers, notices, reports) on their way to Telegram: sent now, or kept and retried in
   * order while Telegram is unavailable. Menus, buttons and courtesies (typing, 👀) go through `telegram` directly.
   */
  outbox: Outbox;
  registry: ToolRegistry;
  /** Bringing a message's photos, recordings and files in (R2, Telegram's file download, transcription). */
  ingest: IngestServices;
  configs: ConfigReader;
  skills: SkillReader;
  /** What the chat's adapters are built from: its settings, the Workers AI binding, the agent containers. */
  adapters: AdapterSources;
  /** Opens the chat's MCP servers for a turn. */
  mcp: McpOpener;
  /** The chat's history by meaning, when a vector index is bound. */
  semanticIndex: SemanticIndex | undefined;
  /** Keeps a file a tool made (a generated image). */
  storeGenerated: GeneratedStore;
  /** The chat's voice for spoken answers, or why it has none. */
  speaker: () => SpeakerChoice;
  /** Where a chat's invalid config is reported for the console. */
  configProblems: ConfigProblemsStore;
  /** Where a model the provider no longer serves is reported, for /health. */
  retiredModels: RetiredModelsStore;
  /** Where /model asks the providers what they serve. */
  served: ServedModelSources;
  /** The access record and pairing codes in KV. */
  pairing: PairingAccess;
  chatKey: string;
  target: ChatTarget;
  chat: ChatDescription;
  access: ChatAccess;
  runs: RunSlot;
  /** The chat's answers still being delivered while the next work starts: what the chat shows next waits for them. */
  replies: ReplyTail;
  tasks: TaskAlarm;
  helpers: HelperLauncher;
  /** When a running turn must end (epoch ms), well within the alarm's 15 minutes. */
  turnDeadline: number;
  /** The invocation's subrequests against the plan's limits: a turn's courtesies ask it first. */
  subrequests: SubrequestAllowance;
  now: () => number;
}
