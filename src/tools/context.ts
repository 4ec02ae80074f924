import type { PaidCallGate } from "../budget/paid-calls.ts";
import type { Settings } from "../config/settings.ts";
import type { MemoryRepository } from "../memory/memory-repository.ts";
import type { MemoryAudience } from "../memory/visibility.ts";
import type { Skill } from "../skills/skill.ts";
import type { TaskRepository } from "../tasks/task-repository.ts";
import type { WidgetSpec } from "../widgets/widget-kinds.ts";
import type { ChatHistory } from "./chat-history.ts";

/** Who is asking and where: every tool handler gets this, and scopes all its data by `chatId`. */
export interface ToolContext {
  chatId: number;
  /** The forum topic the turn runs in, if any; answers and task runs go back there. */
  threadId: number | undefined;
  userId: number | undefined;
  /** The chat is listed in ADMIN_CHAT_IDS: with an admin user and an untainted turn, it may act on other chats. */
  isAdminChat: boolean;
  /** Every sender the turn answers is an admin (ADMIN_USER_IDS, or the owner stored by pairing). */
  isAdminUser: boolean;
  /** Whether the turn has read content nobody in the chat wrote (a fetched page, a document, a task's prompt). */
  trust: TurnTrust;
  /** The bot's settings, read once for the turn. */
  settings: Settings;
  /** Facts the chat's tools remember (their SQL is the repository's). */
  memories: MemoryRepository;
  /**
   * Who is speaking where, for the people's memories (src/memory/visibility.ts); absent where a turn has no people of
   * its own (a background helper): the memory tools then keep to the chat's facts.
   */
  audience?: MemoryAudience;
  /** Told when a person's fact was written, so that their memory is looked at for consolidation after the drain. */
  memoryChanged?: (person: number) => void;
  /** Scheduled tasks: every read and change of them, shared with the admin API. */
  tasks: TaskRepository;
  /** The chat's skills by name (its own, else the bot's), for use_skill. */
  readSkill: (name: string) => Promise<Skill | undefined>;
  timezone: string;
  now: () => number;
  isChatAllowed: (chatId: number) => boolean;
  /** Sends Markdown to a chat now, during the turn. */
  sendMessage: (target: { chatId: number; threadId?: number }, text: string) => Promise<void>;
  /** Sends a photo to this chat (or forum topic) now, during the turn. */
  sendPhoto: (photo: {
    bytes: Uint8Array;
    fileName: string;
    caption?: string;
    key?: string | undefined;
  }) => Promise<void>;
  /** Keeps a file the turn made (a generated image) in the media bucket; its key, or undefined without a bucket. */
  storeGenerated: (bytes: Uint8Array, mediaType: string) => Promise<string | undefined>;
  /** Paid calls (images, searches…): ask before one, record it after; caps and the day's budget are checked. */
  paid: PaidCallGate;
  /**
   * Asks the person to confirm an action this turn may not take on its own (it has read content from outside the
   * chat): a message with a confirm button that only they or an admin can press. Returns what the model is told.
   * Absent where no one can be asked (the confirmed action itself runs without it, in a trusted context).
   */
  confirm?: (action: PendingActionRequest) => Promise<string>;
  /**
   * Asks the person a question with choices, shown as buttons under a message; their tap comes back as their next
   * message. Returns what the model is told. Absent where no one can tap (a guest's turn, a helper, a confirmed call).
   */
  ask?: (question: QuestionRequest) => Promise<string>;
  /** Shows an answer as a widget (or, where one cannot go, as a message). Returns what the model is told. */
  showWidget?: (widget: WidgetSpec) => Promise<string>;
  /** Tells a chat's (or forum topic's) object that its scheduled tasks changed, so it re-arms its alarm. */
  tasksChanged: (chatId: number, threadId?: number) => Promise<void>;
  /** This chat's (or forum topic's) own stored history, for search_history; absent outside the chat's object. */
  history?: ChatHistory;
  /** Starts a background helper (`spawn`); absent where none may be started (a helper's own turn). */
  helpers?: HelperSpawner;
}

/** What `spawn` asks for: the helper's task, a short name, and a shorter time limit than the bot's. */
export interface HelperRequest {
  task: string;
  label?: string | undefined;
  timeLimitSeconds?: number | undefined;
}

/** Starts a helper for the running turn's chat: what the model is told, or why none was started. */
export interface HelperSpawner {
  spawn(request: HelperRequest): Promise<{ started: true; text: string } | { started: false; reason: string }>;
}

/** What ask_user puts to the person: a question and its choices. */
export interface QuestionRequest {
  question: string;
  choices: string[];
}

/** A tool call held back for the person's confirmation: the call as made, and what it would do, in words. */
export interface PendingActionRequest {
  tool: string;
  argumentsText: string;
  summary: string;
  /** What outside content the turn holds. */
  source: string;
}

/**
 * What a turn has read. Text a model reads can steer it, so once a turn has read something nobody in the chat wrote
 * (now, or in the earlier messages, summary or memories it was given), the tools that act beyond the answer (sending
 * to another chat, creating or changing scheduled work) need the person's confirmation for the rest of the turn.
 * Reading the chat's own remembered facts or searched history marks it as holding private data: with outside content
 * too, a tool that sends data to a place the model chose needs confirmation (outward-policy.ts).
 */
export class TurnTrust {
  private source: string | undefined;
  private privateFrom: string | undefined;
  /** Addresses the model was shown (written by a person, or in outside content): fetching one composes nothing. */
  private readonly shown = new Set<string>();

  constructor(untrustedFrom?: string, marks: { privateFrom?: string | undefined } = {}) {
    this.source = untrustedFrom;
    this.privateFrom = marks.privateFrom;
  }

  /** Call before the content is read, so that even a failure's text counts. */
  markUntrusted(source: string): void {
    this.source ??= source;
  }

  /** Call when the turn reads the chat's own data (its facts, its searched history). */
  markPrivate(source: string): void {
    this.privateFrom ??= source;
  }

  /** What made the turn untrusted, if anything. */
  get untrustedSource(): string | undefined {
    return this.source;
  }

  /** What private data of the chat the turn has read, if any. */
  get privateSource(): string | undefined {
    return this.privateFrom;
  }

  /** Remembers the addresses in text the model was given as it is (not text it wrote from the chat's data). */
  noteShown(addresses: Iterable<string>): void {
    for (const address of addresses) this.shown.add(address);
  }

  wasShown(address: string): boolean {
    return this.shown.has(address);
  }
}

/**
 * Why this turn may not act on another chat, or undefined when it may: only in an admin chat, for admins only (every
 * sender the turn answers). Whether the turn has read outside content is the registry's check (a confirmation).
 */
export function crossChatRefusal(context: ToolContext): string | undefined {
  if (!context.isAdminChat) return "Only an admin chat may act on another chat.";
  if (!context.isAdminUser) return "Only one of the bot's admins may act on another chat.";
  return undefined;
}
