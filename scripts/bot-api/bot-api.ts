import { type BotIdentity, BotSettings } from "./bot-settings.ts";
import { type ChatStore, type StoredContent, type StoredMessage, sameContent } from "./chat-store.ts";
import { type CheckedText, checkFormattedText, type TextUse } from "./formatted-text.ts";
import { METHOD_TABLE } from "./method-table.ts";
import { OpenQueries, type OpenQuery } from "./open-queries.ts";
import { badRequest, NOT_FOUND, QUERY_TOO_OLD, type Refusal } from "./refusal.ts";
import { checkReplyMarkup, type InlineKeyboard } from "./reply-markup.ts";
import { checkRichMessage, type RichCheck } from "./rich-message.ts";
import { isRecord } from "./shape-check.ts";
import type { TdlibParser } from "./tdlib.ts";
import { type Inspection, inspectCall, type Violation } from "./vocabulary.ts";
import { WIDGET_METHODS, WidgetMethods } from "./widget-methods.ts";

/**
 * Telegram's Bot API as the bot meets it, shared by the tests' fake (tests/fakes/server.ts) and the playground's
 * stand-in (scripts/playground/bot-api.ts): methods and fields checked against the Bot API's own list, texts and
 * captions parsed by TDLib's parser and refused in Telegram's words, rich messages and widgets checked against their
 * limits, the chats' messages kept, so that edits and deletions are answered as Telegram answers them, and the bot's
 * settings (setMySettings, getMe) and the queries it may still answer (button presses, widget queries) kept.
 */
export interface ChatInfo {
  id: number;
  type: "private" | "group" | "supergroup";
  [field: string]: unknown;
}

export interface BotApiOptions {
  parser: TdlibParser;
  store: ChatStore;
  bot: BotIdentity;
  /** The chat an id names, or undefined for "chat not found" (default: any id, private when positive). */
  chatOf?: (chatId: number) => ChatInfo | undefined;
  /**
   * Guest mode (Bot API 10.0): whether a guest query id is open (default: any non-empty id), and where its answer
   * goes (the playground posts it in the chat the bot was summoned in; the tests' fake keeps nothing).
   */
  guestQuery?: (queryId: string) => { answered(text: string, parseMode: string | undefined): void } | undefined;
}

/** A call's answer: Telegram's `result`, or its refusal; `detail` says more than Telegram does (rich checks). */
export type Outcome = { ok: true; result: unknown } | { ok: false; refusal: Refusal; detail?: string };

const MEDIA_METHODS: Record<string, string> = {
  sendPhoto: "photo",
  sendVoice: "voice",
  sendAudio: "audio",
  sendDocument: "document",
  sendVideo: "video",
  sendAnimation: "animation",
  sendVideoNote: "video_note",
};
const CALLBACK_ANSWER_LIMIT = 200;

export class BotApi {
  readonly store: ChatStore;
  readonly parser: TdlibParser;
  /** Every method or field Telegram would not know, in order; the tests fail on any. */
  readonly violations: Violation[] = [];
  /** Off: a Bot API server older than 10.1 (or a self-hosted one without rich messages). */
  richMessages = true;
  /** Off: a Bot API server older than 10.4 (or a self-hosted one without widgets): the widget methods answer 404. */
  widgetMethods = true;
  /** The bot's settings (Bot API 10.5 setMySettings), which getMe reports. */
  readonly settings = new BotSettings();
  private readonly queries = new OpenQueries();
  private readonly widgets: WidgetMethods;
  private readonly options: BotApiOptions;

  constructor(options: BotApiOptions) {
    this.options = options;
    this.store = options.store;
    this.parser = options.parser;
    this.widgets = new WidgetMethods({
      queries: this.queries,
      withChat: (params, then) => this.withChat(params, then),
      withMessage: (params, what, then) => this.withMessage(params, what, then),
      caption: (params) => this.text(params, "caption", "caption"),
      store: (chat, params, content, keyboard, sent) => this.stored(chat, params, content, keyboard, sent),
      violate: (violation) => this.violations.push(violation),
    });
  }

  /**
   * A button press or a widget tap the bot was told of (the playground's person, a test): the bot can answer it, or
   * reply to the press with an ephemeral message, for as long as Telegram would let it (./open-queries.ts).
   */
  openQuery(query: OpenQuery): void {
    this.queries.open(query);
  }

  /** The method's name and its known parameters; records what Telegram would not know. */
  inspect(method: string, params: Record<string, unknown>): Inspection {
    const inspection = inspectCall(method, params, { richMessages: this.richMessages });
    this.violations.push(...inspection.violations);
    return inspection;
  }

  /** Inspects and answers one call. */
  async call(method: string, params: Record<string, unknown>): Promise<Outcome> {
    const inspection = this.inspect(method, params);
    if (!inspection.method) return { ok: false, refusal: NOT_FOUND };
    return this.answer(inspection.method, inspection.params);
  }

  /**
   * Answers a call already inspected (`method` as the table spells it). An ephemeral message (Bot API 10.2-10.4,
   * `ephemeral_message_parameters`) goes to one person: with `callback_query_id` alone it replies to a recent button
   * press, in the chat the press came from.
   */
  async answer(method: string, params: Record<string, unknown>): Promise<Outcome> {
    if (!this.widgetMethods && WIDGET_METHODS.includes(method)) return { ok: false, refusal: NOT_FOUND };
    const ephemeral = this.ephemeralTarget(params);
    if (ephemeral && "refusal" in ephemeral) return refused(ephemeral.refusal);
    if (!ephemeral) return this.dispatch(method, params);
    const outcome = await this.dispatch(method, { ...params, chat_id: ephemeral.chatId });
    return outcome.ok ? this.asEphemeral(outcome.result, ephemeral.receiverId) : outcome;
  }

  private async dispatch(method: string, params: Record<string, unknown>): Promise<Outcome> {
    if (WIDGET_METHODS.includes(method)) return this.widgets.answer(method, params);
    switch (method) {
      case "getMe":
        return ok(this.settings.fullInfo(this.options.bot));
      case "setMySettings": {
        const refusal = this.settings.apply(params);
        return refusal ? refused(refusal) : ok(true);
      }
      case "sendMessage":
        return this.sendMessage(params);
      case "editMessageText":
        return this.editMessageText(params);
      case "editMessageReplyMarkup":
        return this.editReplyMarkup(params);
      case "editMessageCaption":
        return this.editCaption(params);
      case "deleteMessage":
        return this.deleteMessage(params);
      case "deleteMessages":
        return this.deleteMessages(params);
      case "sendMessageDraft":
        return this.sendDraft(params);
      case "sendRichMessage":
        return this.sendRichMessage(params);
      case "sendRichMessageDraft":
        return this.sendRichDraft(params);
      case "sendChatAction":
        return this.withChat(params, () =>
          params.action === undefined || !CHAT_ACTIONS.includes(String(params.action))
            ? refused(badRequest("wrong parameter action in request"))
            : ok(true),
        );
      case "setMessageReaction":
        return this.withChat(params, () => {
          const reactions = Array.isArray(params.reaction) ? params.reaction : [];
          const invalid = reactions.some(
            (reaction) =>
              isRecord(reaction) && reaction.type === "emoji" && !REACTION_EMOJI.includes(String(reaction.emoji)),
          );
          // Only the emoji Telegram offers as reactions (the Bot API lists them) are taken.
          return invalid ? refused(badRequest("REACTION_INVALID")) : ok(true);
        });
      case "answerGuestQuery":
        return this.answerGuestQuery(params);
      case "answerCallbackQuery": {
        const text = params.text === undefined ? "" : String(params.text);
        return text.length > CALLBACK_ANSWER_LIMIT ? refused(badRequest("MESSAGE_TOO_LONG")) : ok(true);
      }
      case "getUpdates":
        return ok([]);
      case "getWebhookInfo":
        return ok({ url: "", has_custom_certificate: false, pending_update_count: 0 });
      default:
        if (method in MEDIA_METHODS) return this.sendMedia(method, params);
        return ok(true);
    }
  }

  /**
   * A message a scripted answer says was sent (`{ ok: true, result: { message_id } }`): kept as sent, unchecked, so
   * that later edits and deletions of it are answered as for any other.
   */
  adopt(method: string, params: Record<string, unknown>, result: unknown): void {
    const id = (result as { message_id?: unknown } | undefined)?.message_id;
    const chatId = Number(params.chat_id);
    if (typeof id !== "number" || !Number.isSafeInteger(chatId) || this.store.get(chatId, id)) return;
    const text = String(params.text ?? params.caption ?? "");
    this.store.add({
      chatId,
      messageId: id,
      from: "bot",
      content:
        method in MEDIA_METHODS
          ? { kind: "media", media: MEDIA_METHODS[method]!, caption: text, entities: [] }
          : { kind: "text", text, entities: [] },
      keyboard: [],
      sent: { text },
      date: seconds(),
    });
  }

  /** A message someone wrote in a chat (the playground's person), so that replies and reactions find it. */
  receive(message: { chatId: number; messageId: number; text: string }): void {
    this.store.add({
      chatId: message.chatId,
      messageId: message.messageId,
      from: "user",
      content: { kind: "text", text: message.text, entities: [] },
      keyboard: [],
      sent: { text: message.text },
      date: seconds(),
    });
  }

  /** The Bot API `Message` object for a stored message. */
  messageObject(message: StoredMessage): Record<string, unknown> {
    const chat = this.chatOf(message.chatId) ?? { id: message.chatId, type: "private" };
    const content = message.content;
    return {
      message_id: message.messageId,
      date: message.date,
      chat,
      ...(message.from === "bot" ? { from: this.options.bot } : {}),
      ...(message.threadId !== undefined ? { message_thread_id: message.threadId } : {}),
      ...(message.editDate !== undefined ? { edit_date: message.editDate } : {}),
      ...(content.kind === "text"
        ? { text: content.text, ...(content.entities.length > 0 ? { entities: content.entities } : {}) }
        : content.kind === "rich"
          ? { rich_message: { blocks: [{ type: "paragraph", text: content.rich.text }] } }
          : content.kind === "widget"
            ? this.widgetObject(content)
            : {
                [content.media]: mediaObject(content.media, message.messageId),
                ...(content.caption !== "" ? { caption: content.caption } : {}),
                ...(content.entities.length > 0 ? { caption_entities: content.entities } : {}),
              }),
      ...(message.keyboard.length > 0 ? { reply_markup: { inline_keyboard: message.keyboard } } : {}),
    };
  }

  reset(): void {
    this.store.clear();
    this.violations.length = 0;
    this.richMessages = true;
    this.widgetMethods = true;
    this.settings.reset();
    this.queries.clear();
    this.widgets.reset();
  }

  /** A widget message's fields: the widget, its caption; sent widgets are protected from forwarding. */
  private widgetObject(content: Extract<StoredContent, { kind: "widget" }>): Record<string, unknown> {
    const widget = content.widget;
    const publicData = this.widgets.publicData(widget);
    return {
      widget: {
        html: widget.html,
        ...(widget.sharedId ? { id: widget.sharedId } : {}),
        ...(widget.width !== undefined ? { width: widget.width } : {}),
        ...(widget.height !== undefined ? { height: widget.height } : {}),
        ...(publicData !== "" ? { public_data: publicData } : {}),
        ...(widget.chatData !== "" ? { chat_data: widget.chatData } : {}),
      },
      has_protected_content: true,
      ...(content.caption !== "" ? { caption: content.caption } : {}),
      ...(content.entities.length > 0 ? { caption_entities: content.entities } : {}),
    };
  }

  /**
   * Where an ephemeral message goes, when the call asks for one: the chat (`chat_id`, or the press's chat) and the
   * person. A `callback_query_id` must name a press the bot can still answer (Telegram's "query is too old…"). Without
   * one the person must be named; Telegram's words for a missing receiver are not documented (USER_ID_INVALID is the
   * fake's choice).
   */
  private ephemeralTarget(
    params: Record<string, unknown>,
  ): { chatId: unknown; receiverId: number } | { refusal: Refusal } | undefined {
    const ephemeral = params.ephemeral_message_parameters;
    if (!isRecord(ephemeral)) return undefined;
    let chatId = params.chat_id;
    let receiver = ephemeral.receiver_user_id;
    if (ephemeral.callback_query_id !== undefined) {
      const press = this.queries.recent("callback", String(ephemeral.callback_query_id));
      if (!press) return { refusal: QUERY_TOO_OLD };
      chatId ??= press.chatId;
      receiver ??= press.fromId;
    }
    if (typeof receiver !== "number") return { refusal: badRequest("USER_ID_INVALID") };
    return { chatId, receiverId: receiver };
  }

  /**
   * An ephemeral message is seen by its receiver only and is not one of the chat's messages (edited with
   * editEphemeralMessage…): the fake does not keep it. Its result carries `ephemeral_message_id` and `receiver_user`.
   */
  private asEphemeral(result: unknown, receiverId: number): Outcome {
    const message = result as { message_id: number; chat: { id: number } };
    this.store.delete(message.chat.id, message.message_id);
    return ok({
      ...message,
      ephemeral_message_id: message.message_id,
      receiver_user: { id: receiverId, is_bot: false, first_name: "" },
    });
  }

  private chatOf(chatId: number): ChatInfo | undefined {
    if (this.options.chatOf) return this.options.chatOf(chatId);
    if (chatId > 0) return { id: chatId, type: "private" };
    return { id: chatId, type: chatId <= -1_000_000_000_000 ? "supergroup" : "group" };
  }

  /** Runs `then` with the chat `chat_id` names, or answers as Telegram does when it names none. */
  private async withChat(
    params: Record<string, unknown>,
    then: (chat: ChatInfo) => Outcome | Promise<Outcome>,
  ): Promise<Outcome> {
    const raw = params.chat_id;
    if (raw === undefined || raw === null || raw === "") return refused(badRequest("chat_id is empty"));
    const id = typeof raw === "number" ? raw : /^-?\d+$/.test(String(raw)) ? Number(raw) : Number.NaN;
    const chat = Number.isSafeInteger(id) && id !== 0 ? this.chatOf(id) : undefined;
    if (!chat) return refused(badRequest("chat not found"));
    return then(chat);
  }

  private async text(params: Record<string, unknown>, use: TextUse, field = "text"): Promise<CheckedText> {
    return checkFormattedText(this.parser, {
      text: params[field],
      parseMode: params.parse_mode,
      entities: params[field === "caption" ? "caption_entities" : "entities"],
      use,
    });
  }

  /**
   * `answerGuestQuery`: an open query's id, and an article result whose message Telegram can send (the same text
   * checks as a message). Returns a `SentGuestMessage`.
   */
  private async answerGuestQuery(params: Record<string, unknown>): Promise<Outcome> {
    const queryId = typeof params.guest_query_id === "string" ? params.guest_query_id : "";
    // Without a guestQuery option every well-formed id is open (the test fake); with one, it says which are.
    const lookUp = this.options.guestQuery ?? (() => ({ answered: () => undefined }));
    const query = queryId === "" ? undefined : lookUp(queryId);
    if (!query) return refused(QUERY_TOO_OLD);
    const result = isRecord(params.result) ? params.result : {};
    if (typeof result.id !== "string" || result.id === "" || new TextEncoder().encode(result.id).length > 64) {
      return refused(badRequest("RESULT_ID_INVALID"));
    }
    const content = isRecord(result.input_message_content) ? result.input_message_content : undefined;
    if (result.type !== "article" || typeof result.title !== "string" || !content) {
      return refused(badRequest("RESULT_TYPE_INVALID"));
    }
    const text = await checkFormattedText(this.parser, {
      text: content.message_text,
      parseMode: content.parse_mode,
      entities: content.entities,
      use: "send",
    });
    if (!text.ok) return refused(text.refusal);
    query.answered(String(content.message_text), optionalString(content.parse_mode));
    return ok({ inline_message_id: `guest-${queryId}` });
  }

  private async sendMessage(params: Record<string, unknown>): Promise<Outcome> {
    const text = await this.text(params, "send");
    if (!text.ok) return refused(text.refusal);
    const markup = checkReplyMarkup(params.reply_markup);
    if (!markup.ok) return refused(markup.refusal);
    return this.withChat(params, (chat) =>
      this.stored(chat, params, { kind: "text", text: text.text, entities: text.entities }, markup.keyboard, {
        text: String(params.text),
        parseMode: optionalString(params.parse_mode),
      }),
    );
  }

  private async sendRichMessage(params: Record<string, unknown>): Promise<Outcome> {
    const rich = checkRichMessage(params.rich_message, { draft: false });
    if (!rich.ok) return { ok: false, refusal: rich.refusal, detail: rich.detail };
    const markup = checkReplyMarkup(params.reply_markup);
    if (!markup.ok) return refused(markup.refusal);
    return this.withChat(params, (chat) =>
      this.stored(chat, params, { kind: "rich", rich: rich.rich }, markup.keyboard, {
        richMessage: params.rich_message,
      }),
    );
  }

  private async sendMedia(method: string, params: Record<string, unknown>): Promise<Outcome> {
    const media = MEDIA_METHODS[method]!;
    const caption = await this.text(params, "caption", "caption");
    if (!caption.ok) return refused(caption.refusal);
    const markup = checkReplyMarkup(params.reply_markup);
    if (!markup.ok) return refused(markup.refusal);
    return this.withChat(params, (chat) =>
      this.stored(
        chat,
        params,
        { kind: "media", media, caption: caption.text, entities: caption.entities },
        markup.keyboard,
        {
          text: optionalString(params.caption),
          parseMode: optionalString(params.parse_mode),
        },
      ),
    );
  }

  private stored(
    chat: ChatInfo,
    params: Record<string, unknown>,
    content: StoredContent,
    keyboard: InlineKeyboard,
    sent: StoredMessage["sent"],
  ): Outcome {
    const message: StoredMessage = {
      chatId: chat.id,
      messageId: this.store.newMessageId(),
      from: "bot",
      content,
      keyboard,
      sent,
      date: seconds(),
      ...(typeof params.message_thread_id === "number" ? { threadId: params.message_thread_id } : {}),
    };
    this.store.add(message);
    return ok(this.messageObject(message));
  }

  private async editMessageText(params: Record<string, unknown>): Promise<Outcome> {
    let content: StoredContent;
    let sent: StoredMessage["sent"];
    if (params.rich_message !== undefined) {
      if (params.text !== undefined) {
        return { ok: false, refusal: badRequest("RICH_MESSAGE_INVALID"), detail: "both text and rich_message" };
      }
      const rich: RichCheck = checkRichMessage(params.rich_message, { draft: false });
      if (!rich.ok) return { ok: false, refusal: rich.refusal, detail: rich.detail };
      content = { kind: "rich", rich: rich.rich };
      sent = { richMessage: params.rich_message };
    } else {
      const text = await this.text(params, "edit");
      if (!text.ok) return refused(text.refusal);
      content = { kind: "text", text: text.text, entities: text.entities };
      sent = { text: String(params.text), parseMode: optionalString(params.parse_mode) };
    }
    const markup = checkReplyMarkup(params.reply_markup);
    if (!markup.ok) return refused(markup.refusal);
    if (params.inline_message_id !== undefined && params.chat_id === undefined) return ok(true);
    return this.withMessage(params, "message to edit", (message) => {
      if (message.content.kind === "media" || message.content.kind === "widget") {
        return refused(badRequest("there is no text in the message to edit"));
      }
      if (sameContent(message.content, content) && sameKeyboard(message.keyboard, markup.keyboard)) {
        return refused(NOT_MODIFIED);
      }
      Object.assign(message, { content, keyboard: markup.keyboard, sent, editDate: seconds() });
      return ok(this.messageObject(message));
    });
  }

  private async editCaption(params: Record<string, unknown>): Promise<Outcome> {
    const caption = await this.text(params, "edit-caption", "caption");
    if (!caption.ok) return refused(caption.refusal);
    const markup = checkReplyMarkup(params.reply_markup);
    if (!markup.ok) return refused(markup.refusal);
    if (params.inline_message_id !== undefined && params.chat_id === undefined) return ok(true);
    return this.withMessage(params, "message to edit", (message) => {
      if (message.content.kind !== "media" && message.content.kind !== "widget") {
        return refused(badRequest("there is no caption in the message to edit"));
      }
      const content: StoredContent = { ...message.content, caption: caption.text, entities: caption.entities };
      if (sameContent(message.content, content) && sameKeyboard(message.keyboard, markup.keyboard)) {
        return refused(NOT_MODIFIED);
      }
      Object.assign(message, { content, keyboard: markup.keyboard, editDate: seconds() });
      return ok(this.messageObject(message));
    });
  }

  private async editReplyMarkup(params: Record<string, unknown>): Promise<Outcome> {
    const markup = checkReplyMarkup(params.reply_markup);
    if (!markup.ok) return refused(markup.refusal);
    if (params.inline_message_id !== undefined && params.chat_id === undefined) return ok(true);
    return this.withMessage(params, "message to edit", (message) => {
      if (sameKeyboard(message.keyboard, markup.keyboard)) return refused(NOT_MODIFIED);
      Object.assign(message, { keyboard: markup.keyboard, editDate: seconds() });
      return ok(this.messageObject(message));
    });
  }

  private async deleteMessage(params: Record<string, unknown>): Promise<Outcome> {
    return this.withMessage(params, "message to delete", (message) => {
      this.store.delete(message.chatId, message.messageId);
      return ok(true);
    });
  }

  private async deleteMessages(params: Record<string, unknown>): Promise<Outcome> {
    return this.withChat(params, (chat) => {
      const ids = Array.isArray(params.message_ids) ? params.message_ids : [];
      if (ids.length === 0) return refused(badRequest("message identifiers are not specified"));
      // Telegram skips the messages it cannot find.
      for (const id of ids) this.store.delete(chat.id, Number(id));
      return ok(true);
    });
  }

  /**
   * Drafts go to private chats only: elsewhere Telegram answers TEXTDRAFT_PEER_INVALID (reported from the real
   * server for groups and supergroups). `draft_id` must be non-zero; Telegram's word for a zero id is not documented
   * ("DRAFT_ID_INVALID" is chosen).
   */
  private async draftChat(
    params: Record<string, unknown>,
    then: (chat: ChatInfo, draftId: number) => Promise<Outcome> | Outcome,
  ): Promise<Outcome> {
    return this.withChat(params, (chat) => {
      if (chat.type !== "private") return refused(badRequest("TEXTDRAFT_PEER_INVALID"));
      const draftId = Number(params.draft_id);
      if (!Number.isSafeInteger(draftId) || draftId === 0) return refused(badRequest("DRAFT_ID_INVALID"));
      return then(chat, draftId);
    });
  }

  private async sendDraft(params: Record<string, unknown>): Promise<Outcome> {
    return this.draftChat(params, async (chat, draftId) => {
      const text = await this.text(params, "draft");
      if (!text.ok) return refused(text.refusal);
      this.store.setDraft(chat.id, {
        kind: "text",
        draftId,
        text: text.text,
        entities: text.entities,
        rawText: params.text === undefined ? "" : String(params.text),
        ...(typeof params.parse_mode === "string" ? { parseMode: params.parse_mode } : {}),
        canStop: params.can_stop === true,
      });
      return ok(true);
    });
  }

  private async sendRichDraft(params: Record<string, unknown>): Promise<Outcome> {
    return this.draftChat(params, (chat, draftId) => {
      const rich = checkRichMessage(params.rich_message, { draft: true });
      if (!rich.ok) return { ok: false, refusal: rich.refusal, detail: rich.detail };
      this.store.setDraft(chat.id, { kind: "rich", draftId, rich: rich.rich, canStop: params.can_stop === true });
      return ok(true);
    });
  }

  private async withMessage(
    params: Record<string, unknown>,
    what: "message to edit" | "message to delete",
    then: (message: StoredMessage) => Outcome,
  ): Promise<Outcome> {
    return this.withChat(params, (chat) => {
      const message = this.store.get(chat.id, Number(params.message_id));
      return message ? then(message) : refused(badRequest(`${what} not found`));
    });
  }
}

/** telegram-bot-api's wording of TDLib's MESSAGE_NOT_MODIFIED. */
const NOT_MODIFIED = badRequest(
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
);

/** The emoji Telegram takes as a reaction, from the method table. */
const REACTION_EMOJI: string[] = (() => {
  const shape = METHOD_TABLE.shapes.ReactionTypeEmoji;
  const emoji = shape?.kind === "object" ? shape.fields.emoji?.shape : undefined;
  return emoji?.kind === "literal" ? emoji.values.map(String) : [];
})();

/** The actions sendChatAction takes, from the method table. */
const CHAT_ACTIONS: string[] = (() => {
  const shape = METHOD_TABLE.methods.sendChatAction?.action?.shape;
  return shape?.kind === "literal" ? shape.values.map(String) : [];
})();

function sameKeyboard(a: InlineKeyboard, b: InlineKeyboard): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function mediaObject(media: string, messageId: number): unknown {
  const file = { file_id: `${media}-${messageId}`, file_unique_id: `${media}-${messageId}-u` };
  return media === "photo" ? [{ ...file, width: 1, height: 1 }] : file;
}

function ok(result: unknown): Outcome {
  return { ok: true, result };
}

function refused(refusal: Refusal): Outcome {
  return { ok: false, refusal };
}

function optionalString(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

function seconds(): number {
  return Math.floor(Date.now() / 1000);
}
