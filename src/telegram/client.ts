import { Api, GrammyError, InputFile } from "grammy/web";
import { markdownToTelegramHtml, rendersNothing, visibleLength } from "./format.ts";
import { retryTransformer } from "./retry.ts";
import { CUT_NOTE, cutText, MAX_PIECES, splitMessage, TELEGRAM_MESSAGE_LIMIT, withShortInfoStrings } from "./split.ts";
import type { ChatTarget } from "./update.ts";

export interface TelegramClientOptions {
  botToken: string;
  apiBaseUrl: string;
}

export interface SendOptions {
  /** Reply to this message (used in groups, so it is clear who is answered). */
  replyToMessageId?: number;
  /** No piece is sent after this time (epoch ms); an answer held up by rate limits does not hold the chat forever. */
  deadline?: number;
}

/** How long delivering one answer may take, with Telegram's rate-limit waits, before the rest is dropped. */
export const SEND_BUDGET_MS = 120_000;

/**
 * How a call that must not hold up a stream went: it went, Telegram asked to wait (`retry_after` seconds), changed
 * nothing (an edit to the same text), or failed. Such calls are never retried here; the caller paces the next one.
 */
export type QuickResult<T = true> =
  | { kind: "ok"; value: T }
  | { kind: "wait"; seconds: number }
  | { kind: "unchanged" }
  | { kind: "failed"; description: string };

/** An inline keyboard with one row of buttons, each with the data its press sends back. */
export type Buttons = { text: string; data: string }[];
/** An inline keyboard of several rows. */
export type Keyboard = Buttons[];

/**
 * The outbound Bot API, on grammY's `Api` (web build). `api` retries: a 429 after Telegram's `retry_after` (up to
 * 60 s, three times), a 5xx a few times with backoff; answers and commands use it. `quick` never retries: streamed
 * drafts and edits use it, and a refused update is simply superseded by the next one.
 */
export class TelegramClient {
  readonly api: Api;
  private readonly quick: Api;

  constructor(options: TelegramClientOptions) {
    this.api = new Api(options.botToken, { apiRoot: options.apiBaseUrl });
    this.api.config.use(retryTransformer({ maxAttempts: 3, maxRetryAfterSeconds: 60 }));
    this.quick = new Api(options.botToken, { apiRoot: options.apiBaseUrl });
  }

  /** A private chat's draft (Bot API 9.3): an ephemeral preview the final sendMessage replaces. */
  sendDraft(target: ChatTarget, draftId: number, text: string): Promise<QuickResult> {
    return quickly(() => this.quick.sendMessageDraft(target.chatId, draftId, text, threadOf(target)));
  }

  /** A plain message sent without retries (the first piece of a streamed answer, a status line). */
  sendQuick(
    target: ChatTarget,
    text: string,
    options: { replyToMessageId?: number; buttons?: Buttons } = {},
  ): Promise<QuickResult<number>> {
    return quickly(async () => {
      const sent = await this.quick.sendMessage(target.chatId, text, {
        link_preview_options: { is_disabled: true },
        ...threadOf(target),
        ...replyOf(options),
        ...(options.buttons?.length ? keyboardOf(options.buttons) : {}),
      });
      return sent.message_id;
    });
  }

  /** A plain edit without retries; `buttons: []` removes the keyboard. */
  editQuick(target: ChatTarget, messageId: number, text: string, buttons?: Buttons): Promise<QuickResult> {
    return quickly(async () => {
      await this.quick.editMessageText(target.chatId, messageId, text, {
        link_preview_options: { is_disabled: true },
        ...keyboardOf(buttons),
      });
      return true as const;
    });
  }

  /**
   * Replaces a message's text with a rendered piece (HTML), or the piece as plain text when Telegram cannot parse
   * it; the keyboard goes. With retries: this is the final form of an answer.
   */
  async editPiece(target: ChatTarget, messageId: number, piece: { piece: string; html?: string }): Promise<void> {
    const plain = () =>
      this.api.editMessageText(target.chatId, messageId, piece.piece, { link_preview_options: { is_disabled: true } });
    try {
      if (piece.html === undefined) await plain();
      else {
        await this.api.editMessageText(target.chatId, messageId, piece.html, {
          parse_mode: "HTML",
          link_preview_options: { is_disabled: true },
        });
      }
    } catch (error) {
      if (isNotModified(error)) return;
      if (!isEntityParseError(error)) throw error;
      try {
        await plain();
      } catch (again) {
        if (!isNotModified(again)) throw again;
      }
    }
  }

  /** Sends one rendered piece as a new message (HTML, or plain when Telegram cannot parse it). */
  async sendPiece(
    target: ChatTarget,
    piece: { piece: string; html?: string },
    options: SendOptions = {},
  ): Promise<number> {
    if (piece.html !== undefined) {
      try {
        const sent = await this.api.sendMessage(target.chatId, piece.html, {
          parse_mode: "HTML",
          link_preview_options: { is_disabled: true },
          ...threadOf(target),
          ...replyOf(options),
        });
        return sent.message_id;
      } catch (error) {
        if (!isEntityParseError(error)) throw error;
      }
    }
    const [id] = await this.sendPlain(target, piece.piece, replyOf(options));
    return id!;
  }

  async setReaction(target: ChatTarget, messageId: number, emoji: "👀"): Promise<void> {
    await this.quick.setMessageReaction(target.chatId, messageId, [{ type: "emoji", emoji }]);
  }

  async answerCallback(queryId: string, text: string): Promise<void> {
    await this.api.answerCallbackQuery(queryId, { text });
  }

  /**
   * A photo uploaded from bytes (a generated image), with a plain caption cut to Telegram's 1,024 characters (never
   * inside a surrogate pair, which Telegram refuses).
   */
  async sendPhoto(target: ChatTarget, photo: { bytes: Uint8Array; fileName: string; caption?: string }): Promise<void> {
    await this.api.sendPhoto(target.chatId, new InputFile(photo.bytes, photo.fileName), {
      ...threadOf(target),
      ...(photo.caption ? { caption: cutText(photo.caption, 1024) } : {}),
    });
  }

  async sendTyping(target: ChatTarget): Promise<void> {
    await this.api.sendChatAction(target.chatId, "typing", threadOf(target));
  }

  /**
   * Sends Markdown as Telegram HTML, split into as many messages as the 4096-character limit needs. A piece
   * Telegram cannot parse is sent again as plain text. Returns the ids of the messages sent.
   */
  async sendMarkdown(target: ChatTarget, markdown: string, options: SendOptions = {}): Promise<number[]> {
    const ids: number[] = [];
    const deadline = options.deadline ?? Date.now() + SEND_BUDGET_MS;
    for (const { piece, html } of renderPieces(markdown, TELEGRAM_MESSAGE_LIMIT)) {
      if (ids.length > 0 && Date.now() > deadline) {
        console.warn(`chat ${target.chatId}: the rest of an answer was dropped: sending took too long`);
        break;
      }
      const reply = ids.length === 0 ? replyOf(options) : {};
      if (html === undefined) {
        ids.push(...(await this.sendPlain(target, piece, reply)));
        continue;
      }
      try {
        const sent = await this.api.sendMessage(target.chatId, html, {
          parse_mode: "HTML",
          link_preview_options: { is_disabled: true },
          ...threadOf(target),
          ...reply,
        });
        ids.push(sent.message_id);
      } catch (error) {
        if (!isEntityParseError(error)) throw error;
        ids.push(...(await this.sendPlain(target, piece, reply)));
      }
    }
    return ids;
  }

  async sendPlain(target: ChatTarget, text: string, reply: ReturnType<typeof replyOf> = {}): Promise<number[]> {
    const ids: number[] = [];
    for (const piece of splitMessage(text)) {
      const sent = await this.api.sendMessage(target.chatId, piece, {
        link_preview_options: { is_disabled: true },
        ...threadOf(target),
        ...(ids.length === 0 ? reply : {}),
      });
      ids.push(sent.message_id);
    }
    return ids;
  }

  /** Replaces a message's text; a text that does not fit or parse is sent plain. "Not modified" is not an error. */
  async editMarkdown(target: ChatTarget, messageId: number, markdown: string): Promise<void> {
    const html = markdownToTelegramHtml(markdown);
    try {
      if (!rendersNothing(html) && visibleLength(html) <= TELEGRAM_MESSAGE_LIMIT) {
        await this.api.editMessageText(target.chatId, messageId, html, {
          parse_mode: "HTML",
          link_preview_options: { is_disabled: true },
        });
        return;
      }
      await this.api.editMessageText(target.chatId, messageId, cutText(markdown, TELEGRAM_MESSAGE_LIMIT));
    } catch (error) {
      if (isNotModified(error)) return;
      if (!isEntityParseError(error)) throw error;
      await this.api.editMessageText(target.chatId, messageId, cutText(markdown, TELEGRAM_MESSAGE_LIMIT));
    }
  }

  /** A short Markdown text (one message) with an inline keyboard of rows, such as `/model`'s choices. */
  async sendMenu(target: ChatTarget, markdown: string, keyboard: Keyboard): Promise<number> {
    const sent = await this.api.sendMessage(target.chatId, markdownToTelegramHtml(markdown), {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...threadOf(target),
      reply_markup: inlineKeyboardOf(keyboard),
    });
    return sent.message_id;
  }

  /** Replaces a menu's text and keyboard; "not modified" (the same choice pressed twice) is not an error. */
  async editMenu(target: ChatTarget, messageId: number, markdown: string, keyboard: Keyboard): Promise<void> {
    try {
      await this.api.editMessageText(target.chatId, messageId, markdownToTelegramHtml(markdown), {
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        reply_markup: inlineKeyboardOf(keyboard),
      });
    } catch (error) {
      if (!isNotModified(error)) throw error;
    }
  }

  async deleteMessage(target: ChatTarget, messageId: number): Promise<void> {
    await this.api.deleteMessage(target.chatId, messageId);
  }
}

/**
 * Markdown pieces with their HTML, each within the limit once rendered. Pieces are cut by their Markdown length;
 * rendering can make one longer (a list numbered `1.` throughout is renumbered), so such a piece is cut again,
 * smaller. A piece that renders to no text (an empty code block), or still does not fit, goes as plain text (`html`
 * undefined): Telegram refuses an empty message.
 */
export function renderPieces(markdown: string, limit: number): { piece: string; html?: string }[] {
  const pieces = renderAll(withShortInfoStrings(markdown), limit);
  return pieces.length <= MAX_PIECES ? pieces : [...pieces.slice(0, MAX_PIECES - 1), { piece: CUT_NOTE }];
}

function renderAll(markdown: string, limit: number): { piece: string; html?: string }[] {
  return splitMessage(markdown, limit).flatMap((piece) => {
    const html = markdownToTelegramHtml(piece);
    if (rendersNothing(html)) return [{ piece }];
    if (visibleLength(html) <= TELEGRAM_MESSAGE_LIMIT) return [{ piece, html }];
    if (limit > 1000 && piece.length > 1000) return renderAll(piece, Math.floor(limit * 0.7));
    return [{ piece }];
  });
}

/** Runs a call that must not wait: Telegram's refusals come back as values, with `retry_after` when it gave one. */
async function quickly<T>(call: () => Promise<T>): Promise<QuickResult<T>> {
  try {
    return { kind: "ok", value: await call() };
  } catch (error) {
    if (error instanceof GrammyError) {
      if (error.error_code === 429) return { kind: "wait", seconds: error.parameters.retry_after ?? 1 };
      if (isNotModified(error)) return { kind: "unchanged" };
      return { kind: "failed", description: `${error.error_code} ${error.description}` };
    }
    return { kind: "failed", description: error instanceof Error ? error.message : String(error) };
  }
}

function keyboardOf(buttons: Buttons | undefined): {
  reply_markup?: { inline_keyboard: { text: string; callback_data: string }[][] };
} {
  if (buttons === undefined) return {};
  return {
    reply_markup: {
      inline_keyboard: buttons.length === 0 ? [] : [buttons.map((b) => ({ text: b.text, callback_data: b.data }))],
    },
  };
}

function inlineKeyboardOf(keyboard: Keyboard): { inline_keyboard: { text: string; callback_data: string }[][] } {
  return { inline_keyboard: keyboard.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))) };
}

function threadOf(target: ChatTarget): { message_thread_id?: number } {
  return target.threadId === undefined ? {} : { message_thread_id: target.threadId };
}

function replyOf(options: SendOptions): {
  reply_parameters?: { message_id: number; allow_sending_without_reply: boolean };
} {
  return options.replyToMessageId === undefined
    ? {}
    : { reply_parameters: { message_id: options.replyToMessageId, allow_sending_without_reply: true } };
}

export function isEntityParseError(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /can't parse entities/i.test(error.description);
}

function isNotModified(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /message is not modified/i.test(error.description);
}
