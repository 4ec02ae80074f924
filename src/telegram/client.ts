import { BotApi, BotApiError, InputFile, type Transformer } from "./bot-api.ts";
import { api105 } from "./bot-api-10-5.ts";
import { failureOf } from "./failure.ts";
import type { ChatTarget } from "./incoming-message.ts";
import { messageDefaultsTransformer } from "./message-defaults.ts";
import { plainFallbackTransformer, withPlainFallback } from "./plain-fallback.ts";
import { type RenderedPiece, renderOne, renderPieces } from "./render.ts";
import { retryTransformer } from "./retry.ts";
import { cutText, splitMessage } from "./split.ts";
import type { PressedMessage } from "./update.ts";

export interface TelegramClientOptions {
  botToken: string;
  apiBaseUrl: string;
  /** Whether `api` retries a 5xx and waits out a short 429 (default); the outbox retries on its own schedule. */
  retries?: boolean;
  /** Every call waits for this first (see `after`). */
  gate?: Promise<unknown>;
}

/** A call Telegram has not answered in this long fails (grammY's was 500 s, which would hold a turn). */
const CALL_TIMEOUT_SECONDS = 60;

export interface SendOptions {
  /** Reply to this message (used in groups, so it is clear who is answered). */
  replyToMessageId?: number;
  /** No piece is sent after this time (epoch ms); an answer held up by rate limits does not hold the chat forever. */
  deadline?: number;
}

/** How long delivering one answer may take, with Telegram's rate-limit waits, before the rest is dropped. */
const SEND_BUDGET_MS = 120_000;

/**
 * How a call that must not hold up a stream went: it went, Telegram asked to wait (`retry_after` seconds), changed
 * nothing (an edit to the same text), refused it (4xx; `rich` when what it refused is the rich form: see
 * failure.ts), or was unavailable (5xx, a timeout, a dropped connection: nothing was refused). Such calls are never
 * retried here; the caller paces the next one.
 */
export type QuickResult<T = true> =
  | { kind: "ok"; value: T }
  | { kind: "wait"; seconds: number }
  | { kind: "unchanged" }
  | { kind: "refused"; description: string; rich: boolean }
  | { kind: "unavailable"; description: string };

/** An inline keyboard with one row of buttons, each with the data its press sends back. */
export type Buttons = { text: string; data: string }[];
/** An inline keyboard of several rows. */
export type Keyboard = Buttons[];

/**
 * The outbound Bot API, on BotApi (bot-api.ts). What applies to every call is a transformer: no link
 * previews, formatted text Telegram cannot parse sent again as plain text, and (on `api`) retries: a 429 after
 * Telegram's `retry_after` (up to 60 s, three times), a 5xx a few times with backoff. Answers and commands use `api`;
 * streamed drafts and edits go through `quick`, which never retries: a refused update is superseded by the next one.
 */
export class TelegramClient {
  readonly api: BotApi;
  private readonly quick: BotApi;
  private once: TelegramClient | undefined;

  constructor(private readonly options: TelegramClientOptions) {
    const client = { apiRoot: options.apiBaseUrl, timeoutSeconds: CALL_TIMEOUT_SECONDS };
    this.api = new BotApi(options.botToken, client);
    if (options.retries !== false) this.api.config.use(retryTransformer({ maxAttempts: 3, maxRetryAfterSeconds: 60 }));
    this.api.config.use(plainFallbackTransformer(), messageDefaultsTransformer());
    this.quick = new BotApi(options.botToken, client);
    this.quick.config.use(messageDefaultsTransformer());
    const { gate } = options;
    if (gate) {
      // Added last, so it sees each call first: nothing (not even a retry's first try) goes before the gate.
      const waiting: Transformer = async (previous, method, payload, signal) => {
        await gate.catch(() => undefined);
        return previous(method, payload, signal);
      };
      this.api.config.use(waiting);
      this.quick.config.use(waiting);
    }
  }

  /**
   * The same bot whose calls wait for `gate` first: what a turn shows waits for the answer of the turn before it,
   * still on its way (see ReplyTail).
   */
  after(gate: Promise<unknown>): TelegramClient {
    return new TelegramClient({ ...this.options, gate });
  }

  /** The same client without retries: each call is made once (the outbox's retries are hours apart, not seconds). */
  withoutRetries(): TelegramClient {
    if (this.options.retries === false) return this;
    this.once ??= new TelegramClient({ ...this.options, retries: false });
    return this.once;
  }

  /** A private chat's draft (Bot API 9.3): an ephemeral preview the final sendMessage replaces. */
  sendDraft(target: ChatTarget, draftId: number, text: string): Promise<QuickResult> {
    return quickly(() => this.quick.sendMessageDraft(target.chatId, draftId, text, threadOf(target)));
  }

  /**
   * A private chat's rich draft (Bot API 10.1): Telegram's Markdown, with a stop control (10.3) whose press sends a
   * `stopped_message_generation` update naming `draftId`.
   */
  sendRichDraft(
    target: ChatTarget,
    draftId: number,
    markdown: string,
    options: { canStop: boolean },
  ): Promise<QuickResult> {
    return quickly(() =>
      this.quick.sendRichMessageDraft(
        target.chatId,
        draftId,
        { markdown },
        { ...threadOf(target), ...(options.canStop ? { can_stop: true } : {}) },
      ),
    );
  }

  /** A rich message sent without retries (the first of a streamed rich answer); returns its id. */
  sendRichQuick(
    target: ChatTarget,
    markdown: string,
    options: { replyToMessageId?: number; buttons?: Buttons } = {},
  ): Promise<QuickResult<number>> {
    return quickly(async () => {
      const sent = await this.quick.sendRichMessage(
        target.chatId,
        { markdown },
        {
          ...threadOf(target),
          ...replyOf(options),
          ...(options.buttons?.length ? keyboardOf([options.buttons]) : {}),
        },
      );
      return sent.message_id;
    });
  }

  /** A rich message's new content without retries; `buttons: []` removes the keyboard. */
  editRichQuick(target: ChatTarget, messageId: number, markdown: string, buttons?: Buttons): Promise<QuickResult> {
    return quickly(async () => {
      await this.quick.editMessageText(
        target.chatId,
        messageId,
        { markdown },
        buttons === undefined ? {} : keyboardOf(buttons.length === 0 ? [] : [buttons]),
      );
      return true as const;
    });
  }

  /** A rich message from Telegram's Markdown (see rich-markdown.ts), with retries; returns its id. */
  async sendRich(target: ChatTarget, markdown: string, options: { replyToMessageId?: number } = {}): Promise<number> {
    const sent = await this.api.sendRichMessage(
      target.chatId,
      { markdown },
      { ...threadOf(target), ...replyOf(options) },
    );
    return sent.message_id;
  }

  /**
   * Replaces a rich message's content (the final form of a streamed rich answer) and removes its keyboard. "Not
   * modified" is not an error. With retries.
   */
  async editRich(target: ChatTarget, messageId: number, markdown: string): Promise<void> {
    try {
      await this.api.editMessageText(target.chatId, messageId, { markdown }, keyboardOf([]));
    } catch (error) {
      if (!isNotModified(error)) throw error;
    }
  }

  /** A plain message sent without retries (the first piece of a streamed answer, a status line). */
  sendQuick(
    target: ChatTarget,
    text: string,
    options: { replyToMessageId?: number; buttons?: Buttons } = {},
  ): Promise<QuickResult<number>> {
    return quickly(async () => {
      const sent = await this.quick.sendMessage(target.chatId, text, {
        ...threadOf(target),
        ...replyOf(options),
        ...(options.buttons?.length ? keyboardOf([options.buttons]) : {}),
      });
      return sent.message_id;
    });
  }

  /** A plain edit without retries; `buttons: []` removes the keyboard. */
  editQuick(target: ChatTarget, messageId: number, text: string, buttons?: Buttons): Promise<QuickResult> {
    return quickly(async () => {
      await this.quick.editMessageText(target.chatId, messageId, text, {
        ...(buttons === undefined ? {} : keyboardOf(buttons.length === 0 ? [] : [buttons])),
      });
      return true as const;
    });
  }

  /**
   * Sends Markdown as Telegram HTML, split into as many messages as the 4096-character limit needs, with an inline
   * keyboard under the last one if given. Returns the ids of the messages sent.
   */
  async sendMarkdown(
    target: ChatTarget,
    markdown: string,
    options: SendOptions & { keyboard?: Keyboard } = {},
  ): Promise<number[]> {
    return this.sendPieces(target, renderPieces(markdown), options);
  }

  /** Sends plain text, split at 4,096 characters. */
  async sendPlain(target: ChatTarget, text: string, options: SendOptions = {}): Promise<number[]> {
    return this.sendPieces(
      target,
      splitMessage(text).map((piece) => ({ piece })),
      options,
    );
  }

  /** Sends one rendered piece as a new message (HTML, or its Markdown when Telegram cannot parse the HTML). */
  async sendPiece(
    target: ChatTarget,
    piece: RenderedPiece,
    options: { replyToMessageId?: number; keyboard?: Keyboard } = {},
  ): Promise<number> {
    const extras = {
      ...threadOf(target),
      ...replyOf(options),
      ...(options.keyboard ? keyboardOf(options.keyboard) : {}),
    };
    const sent =
      piece.html === undefined
        ? await this.api.sendMessage(target.chatId, piece.piece, extras)
        : await this.api.sendMessage(
            target.chatId,
            piece.html,
            withPlainFallback({ ...extras, parse_mode: "HTML" as const }, piece.piece),
          );
    return sent.message_id;
  }

  /**
   * Replaces a message's text with a rendered piece (the final form of a streamed answer, a menu's new state), and
   * its keyboard with `keyboard` (none if not given). "Not modified" is not an error. With retries.
   */
  async editPiece(target: ChatTarget, messageId: number, piece: RenderedPiece, keyboard?: Keyboard): Promise<void> {
    const extras = keyboard ? keyboardOf(keyboard) : {};
    try {
      if (piece.html === undefined) await this.api.editMessageText(target.chatId, messageId, piece.piece, extras);
      else {
        await this.api.editMessageText(
          target.chatId,
          messageId,
          piece.html,
          withPlainFallback({ ...extras, parse_mode: "HTML" as const }, piece.piece),
        );
      }
    } catch (error) {
      if (!isNotModified(error)) throw error;
    }
  }

  /** A short Markdown text (one message) with an inline keyboard of rows, such as `/model`'s choices. */
  async sendMenu(target: ChatTarget, markdown: string, keyboard: Keyboard): Promise<number> {
    return this.sendPiece(target, renderOne(markdown), { keyboard });
  }

  /** Replaces a menu's text and keyboard; "not modified" (the same choice pressed twice) is not an error. */
  async editMenu(target: ChatTarget, messageId: number, markdown: string, keyboard: Keyboard): Promise<void> {
    await this.editPiece(target, messageId, renderOne(markdown), keyboard);
  }

  /**
   * Replaces the text and keyboard of the message a button was pressed on: by chat and id, or, for a press Telegram
   * named only by its inline id (Bot API 10.5), by that id. "Not modified" is not an error.
   */
  async editPressed(target: ChatTarget, pressed: PressedMessage, markdown: string, keyboard: Keyboard): Promise<void> {
    if (pressed.kind === "message") return this.editMenu(target, pressed.messageId, markdown, keyboard);
    const piece = renderOne(markdown);
    const extras = keyboardOf(keyboard);
    try {
      if (piece.html === undefined) await this.api.editMessageTextInline(pressed.inlineMessageId, piece.piece, extras);
      else {
        await this.api.editMessageTextInline(
          pressed.inlineMessageId,
          piece.html,
          withPlainFallback({ ...extras, parse_mode: "HTML" as const }, piece.piece),
        );
      }
    } catch (error) {
      if (!isNotModified(error)) throw error;
    }
  }

  async setReaction(target: ChatTarget, messageId: number, emoji: "👀"): Promise<void> {
    await this.quick.setMessageReaction(target.chatId, messageId, [{ type: "emoji", emoji }]);
  }

  /** Answers a button press: a short notice over the chat (`text`), or, without it, just stops the spinner. */
  async answerCallback(queryId: string, text?: string): Promise<void> {
    await this.api.answerCallbackQuery(queryId, text === undefined ? {} : { text });
  }

  /**
   * An ephemeral reply to a button press (Bot API 10.4): a message in the press's chat that only the presser sees,
   * named by the press alone. Made once (a late retry would find the press too old).
   */
  async replyPrivately(queryId: string, text: string): Promise<void> {
    await api105(this.quick).sendMessage({
      text: cutText(text, 4096),
      ephemeral_message_parameters: { callback_query_id: queryId },
    });
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

  /**
   * A voice message uploaded from bytes (OGG/Opus or MP3, which the Bot API takes for voice), with a plain caption
   * cut to Telegram's 1,024 characters, replying where asked.
   */
  async sendVoice(
    target: ChatTarget,
    voice: { bytes: Uint8Array; fileName: string; caption?: string; replyToMessageId?: number },
  ): Promise<number> {
    const sent = await this.api.sendVoice(target.chatId, new InputFile(voice.bytes, voice.fileName), {
      ...threadOf(target),
      ...replyOf(voice),
      ...(voice.caption ? { caption: voice.caption.slice(0, 1024) } : {}),
    });
    return sent.message_id;
  }

  /**
   * Answers a guest query (Bot API 10.0) with one article whose message is the rendered piece: Telegram HTML, or its
   * Markdown as plain text when Telegram cannot parse the HTML. Returns the posted message's inline id.
   */
  async answerGuest(queryId: string, piece: RenderedPiece, title = "Answer"): Promise<string> {
    const article = (content: { message_text: string; parse_mode?: "HTML" }) => ({
      type: "article" as const,
      id: crypto.randomUUID().replace(/-/g, ""),
      title,
      input_message_content: { ...content, link_preview_options: { is_disabled: true } },
    });
    if (piece.html !== undefined) {
      try {
        const sent = await this.api.answerGuestQuery(
          queryId,
          article({ message_text: piece.html, parse_mode: "HTML" }),
        );
        return sent.inline_message_id;
      } catch (error) {
        if (!(error instanceof BotApiError && /can't parse entities/i.test(error.description))) throw error;
      }
    }
    const sent = await this.api.answerGuestQuery(queryId, article({ message_text: piece.piece }));
    return sent.inline_message_id;
  }

  /**
   * A widget (Bot API 10.4): one self-contained HTML document (checked against src/widgets/widget-rules.ts before),
   * its state as chat data, able to send queries. Made once: a refusal or an unavailable Telegram is the caller's to
   * turn into the same answer as a message. Returns the message's id.
   */
  async sendWidget(target: ChatTarget, widget: { html: string; chatData: string; caption?: string }): Promise<number> {
    const sent = await api105(this.quick).sendWidget({
      chat_id: target.chatId,
      ...threadOf(target),
      html: widget.html,
      chat_data: widget.chatData,
      allow_queries: true,
      ...(widget.caption ? { caption: cutText(widget.caption, 1024) } : {}),
    });
    return sent.message_id;
  }

  /** A widget message's new chat data (its state, shown again when the widget is reopened). With retries. */
  async editWidgetData(target: ChatTarget, messageId: number, chatData: string): Promise<void> {
    await api105(this.api).editMessageWidgetData({
      chat_id: target.chatId,
      message_id: messageId,
      chat_data: chatData,
    });
  }

  /** The answer to a widget's query (at most 1,024 bytes), within Telegram's 15 seconds: made once. */
  async answerWidgetQuery(queryId: string, data: string): Promise<void> {
    await api105(this.quick).answerWidgetQuery({ widget_query_id: queryId, ...(data === "" ? {} : { data }) });
  }

  /** "typing…", once: it is renewed every few seconds anyway, and a late one would show under the answer. */
  async sendTyping(target: ChatTarget): Promise<void> {
    await this.quick.sendChatAction(target.chatId, "typing", threadOf(target));
  }

  async deleteMessage(target: ChatTarget, messageId: number): Promise<void> {
    await this.api.deleteMessage(target.chatId, messageId);
  }

  /** Pieces in order, the first replying where asked, the keyboard under the last; none after the deadline. */
  private async sendPieces(
    target: ChatTarget,
    pieces: RenderedPiece[],
    options: SendOptions & { keyboard?: Keyboard },
  ): Promise<number[]> {
    const ids: number[] = [];
    const deadline = options.deadline ?? Date.now() + SEND_BUDGET_MS;
    for (const [index, piece] of pieces.entries()) {
      if (ids.length > 0 && Date.now() > deadline) {
        console.warn(`chat ${target.chatId}: the rest of an answer was dropped: sending took too long`);
        break;
      }
      ids.push(
        await this.sendPiece(target, piece, {
          ...(index === 0 && options.replyToMessageId !== undefined
            ? { replyToMessageId: options.replyToMessageId }
            : {}),
          ...(index === pieces.length - 1 && options.keyboard ? { keyboard: options.keyboard } : {}),
        }),
      );
    }
    return ids;
  }
}

/** Runs a call that must not wait: Telegram's refusals come back as values, with `retry_after` when it gave one. */
async function quickly<T>(call: () => Promise<T>): Promise<QuickResult<T>> {
  try {
    return { kind: "ok", value: await call() };
  } catch (error) {
    if (error instanceof BotApiError) {
      if (error.error_code === 429) return { kind: "wait", seconds: error.parameters.retry_after ?? 1 };
      if (isNotModified(error)) return { kind: "unchanged" };
    }
    return failureOf(error);
  }
}

function keyboardOf(keyboard: Keyboard): {
  reply_markup: { inline_keyboard: { text: string; callback_data: string }[][] };
} {
  return {
    reply_markup: { inline_keyboard: keyboard.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))) },
  };
}

function threadOf(target: ChatTarget): { message_thread_id?: number } {
  return target.threadId === undefined ? {} : { message_thread_id: target.threadId };
}

function replyOf(options: { replyToMessageId?: number }): {
  reply_parameters?: { message_id: number; allow_sending_without_reply: boolean };
} {
  return options.replyToMessageId === undefined
    ? {}
    : { reply_parameters: { message_id: options.replyToMessageId, allow_sending_without_reply: true } };
}

function isNotModified(error: unknown): boolean {
  return error instanceof BotApiError && error.error_code === 400 && /message is not modified/i.test(error.description);
}
