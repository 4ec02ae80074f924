import type { InlineKeyboard } from "./reply-markup.ts";
import type { StoredRich } from "./rich-message.ts";
import type { ParsedEntity } from "./tdlib.ts";

/**
 * The messages Telegram would hold, per chat: what each says (the text once parsed, or the rich message, or the
 * media and its caption), its inline keyboard, and each private chat's current draft. Edits, "not modified" and
 * "not found" are decided against it.
 */
export type StoredContent =
  | { kind: "text"; text: string; entities: ParsedEntity[] }
  | { kind: "rich"; rich: StoredRich }
  | { kind: "media"; media: string; caption: string; entities: ParsedEntity[] }
  | { kind: "widget"; widget: StoredWidget; caption: string; entities: ParsedEntity[] };

/** An HTML widget in a message (Bot API 10.4): its code, size and data; a shared one's public data is kept by id. */
export interface StoredWidget {
  html: string;
  width?: number;
  height?: number;
  chatData: string;
  publicData: string;
  /** A shared widget's id (sendWidget with is_shared, or sendSharedWidget). */
  sharedId?: string;
  allowQueries: boolean;
}

export interface StoredMessage {
  chatId: number;
  messageId: number;
  threadId?: number;
  from: "bot" | "user";
  content: StoredContent;
  keyboard: InlineKeyboard;
  /** What the bot sent for the current content: the raw text and its parse mode, or the rich message. */
  sent: { text?: string; parseMode?: string; richMessage?: unknown };
  date: number;
  editDate?: number;
}

/** A private chat's draft; `canStop` when it shows Telegram's stop control (Bot API 10.3). */
export type StoredDraft =
  | {
      kind: "text";
      draftId: number;
      text: string;
      entities: ParsedEntity[];
      parseMode?: string;
      rawText: string;
      canStop: boolean;
    }
  | { kind: "rich"; draftId: number; rich: StoredRich; canStop: boolean };

export class ChatStore {
  private readonly chats = new Map<number, Map<number, StoredMessage>>();
  private readonly drafts = new Map<number, StoredDraft>();
  private nextMessageId: number;

  private readonly maxPerChat: number;

  /** `maxPerChat`: keep only a chat's newest messages (a benchmark sends hundreds of thousands). */
  constructor(options: { firstMessageId?: number; maxPerChat?: number } = {}) {
    this.nextMessageId = options.firstMessageId ?? 1;
    this.maxPerChat = options.maxPerChat ?? Number.POSITIVE_INFINITY;
  }

  newMessageId(): number {
    return this.nextMessageId++;
  }

  add(message: StoredMessage): void {
    let chat = this.chats.get(message.chatId);
    if (!chat) {
      chat = new Map();
      this.chats.set(message.chatId, chat);
    }
    chat.set(message.messageId, message);
    if (chat.size > this.maxPerChat) chat.delete(chat.keys().next().value!);
    // Telegram ends a chat's draft when the bot sends it a message.
    if (message.from === "bot") this.drafts.delete(message.chatId);
  }

  get(chatId: number, messageId: number): StoredMessage | undefined {
    return this.chats.get(chatId)?.get(messageId);
  }

  delete(chatId: number, messageId: number): boolean {
    return this.chats.get(chatId)?.delete(messageId) ?? false;
  }

  messages(chatId: number): StoredMessage[] {
    return [...(this.chats.get(chatId)?.values() ?? [])];
  }

  setDraft(chatId: number, draft: StoredDraft): void {
    this.drafts.set(chatId, draft);
  }

  draft(chatId: number): StoredDraft | undefined {
    return this.drafts.get(chatId);
  }

  /** The person pressed the draft's stop control: it goes (the bot did not ask to keep it). */
  endDraft(chatId: number): void {
    this.drafts.delete(chatId);
  }

  /** Forgets every message and draft; message ids keep counting, so that an id is never given twice. */
  clear(): void {
    this.chats.clear();
    this.drafts.clear();
  }
}

/** Whether an edit would change nothing: the same content (text and entities, or rich source) and keyboard. */
export function sameContent(a: StoredContent, b: StoredContent): boolean {
  return JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));
}

function comparable(content: StoredContent): unknown {
  return content.kind === "rich" ? { kind: "rich", input: content.rich.input } : content;
}
