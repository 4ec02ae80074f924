import type { ChatInfo, Outcome } from "./bot-api.ts";
import type { StoredContent, StoredMessage, StoredWidget } from "./chat-store.ts";
import type { CheckedText } from "./formatted-text.ts";
import type { OpenQueries } from "./open-queries.ts";
import { badRequest, QUERY_TOO_OLD, type Refusal, tooManyRequests } from "./refusal.ts";
import { checkReplyMarkup, type InlineKeyboard } from "./reply-markup.ts";
import type { Violation } from "./vocabulary.ts";
import { networkReferences, widgetDataProblem, widgetHtmlProblem } from "./widget-limits.ts";

/**
 * The widget methods of Bot API 10.4: sendWidget, sendSharedWidget, editMessageWidgetData, editSharedWidgetData and
 * answerWidgetQuery, with the widget's documented limits (./widget-limits.ts). "Currently, in the production
 * environment, widgets can be sent only to private chats": elsewhere the fake answers INPUT_MEDIA_WIDGET_NOT_ALLOWED,
 * the name a client of Telegram's own API reports for a widget sent where it may not go (Telegram's docs name no
 * error). "Public data of a shared widget can be changed at most once per second": sooner is a 429.
 */
export interface WidgetHost {
  queries: OpenQueries;
  withChat(params: Record<string, unknown>, then: (chat: ChatInfo) => Outcome | Promise<Outcome>): Promise<Outcome>;
  withMessage(
    params: Record<string, unknown>,
    what: "message to edit",
    then: (message: StoredMessage) => Outcome,
  ): Promise<Outcome>;
  caption(params: Record<string, unknown>): Promise<CheckedText>;
  store(
    chat: ChatInfo,
    params: Record<string, unknown>,
    content: StoredContent,
    keyboard: InlineKeyboard,
    sent: StoredMessage["sent"],
  ): Outcome;
  violate(violation: Violation): void;
}

interface SharedWidget {
  html: string;
  width?: number;
  height?: number;
  publicData: string;
  allowQueries: boolean;
  /** When its public data last changed (epoch ms). */
  editedAt: number;
}

export const WIDGET_METHODS = [
  "sendWidget",
  "sendSharedWidget",
  "editMessageWidgetData",
  "editSharedWidgetData",
  "answerWidgetQuery",
];

const NOT_ALLOWED = badRequest("INPUT_MEDIA_WIDGET_NOT_ALLOWED");
/** The fake's own words (Telegram's are not documented), in the style of its MTProto error names. */
const WIDGET_ID_INVALID = badRequest("WIDGET_ID_INVALID");
/** The fake's own words, after telegram-bot-api's "there is no caption in the message to edit". */
const NO_WIDGET = badRequest("there is no widget in the message to edit");
const SHARED_EDIT_MS = 1000;

export class WidgetMethods {
  private readonly host: WidgetHost;
  private readonly shared = new Map<string, SharedWidget>();
  private nextSharedId = 1;

  constructor(host: WidgetHost) {
    this.host = host;
  }

  async answer(method: string, params: Record<string, unknown>): Promise<Outcome> {
    switch (method) {
      case "sendWidget":
        return this.sendWidget(params);
      case "sendSharedWidget":
        return this.sendSharedWidget(params);
      case "editMessageWidgetData":
        return this.editMessageData(params);
      case "editSharedWidgetData":
        return this.editSharedData(params);
      default:
        return this.answerQuery(params);
    }
  }

  /** The public data a message's widget shows: a shared widget's own, else the message's. */
  publicData(widget: StoredWidget): string {
    return (widget.sharedId ? this.shared.get(widget.sharedId)?.publicData : undefined) ?? widget.publicData;
  }

  reset(): void {
    this.shared.clear();
  }

  private async sendWidget(params: Record<string, unknown>): Promise<Outcome> {
    const html = widgetHtmlProblem(params.html);
    if (html) return { ok: false, refusal: html.refusal, detail: html.detail };
    const data = widgetDataProblem(params.public_data, params.chat_data);
    if (data) return refused(data);
    return this.send(params, () => {
      for (const reference of networkReferences(String(params.html))) {
        this.host.violate({ method: "sendWidget", field: `html: ${reference}`, problem: "widget network use" });
      }
      const widget: StoredWidget = {
        html: String(params.html),
        ...size(params),
        chatData: optionalText(params.chat_data),
        publicData: optionalText(params.public_data),
        allowQueries: params.allow_queries === true,
      };
      if (params.is_shared === true) {
        const id = `widget-${this.nextSharedId++}`;
        this.shared.set(id, { ...widget, editedAt: 0 });
        widget.sharedId = id;
      }
      return widget;
    });
  }

  private async sendSharedWidget(params: Record<string, unknown>): Promise<Outcome> {
    const id = String(params.widget_id ?? "");
    const shared = this.shared.get(id);
    if (!shared) return refused(WIDGET_ID_INVALID);
    const data = widgetDataProblem(params.chat_data);
    if (data) return refused(data);
    return this.send(params, () => ({
      html: shared.html,
      ...(shared.width !== undefined ? { width: shared.width } : {}),
      ...(shared.height !== undefined ? { height: shared.height } : {}),
      chatData: optionalText(params.chat_data),
      publicData: shared.publicData,
      sharedId: id,
      allowQueries: shared.allowQueries,
    }));
  }

  /** A widget message to a private chat, with its caption and keyboard checked as for any message. */
  private async send(params: Record<string, unknown>, widget: () => StoredWidget): Promise<Outcome> {
    const caption = await this.host.caption(params);
    if (!caption.ok) return refused(caption.refusal);
    const markup = checkReplyMarkup(params.reply_markup);
    if (!markup.ok) return refused(markup.refusal);
    return this.host.withChat(params, (chat) => {
      if (chat.type !== "private") return refused(NOT_ALLOWED);
      return this.host.store(
        chat,
        params,
        { kind: "widget", widget: widget(), caption: caption.text, entities: caption.entities },
        markup.keyboard,
        { text: optionalText(params.caption) },
      );
    });
  }

  private async editMessageData(params: Record<string, unknown>): Promise<Outcome> {
    const data = widgetDataProblem(params.public_data, params.chat_data);
    if (data) return refused(data);
    if (params.inline_message_id !== undefined && params.chat_id === undefined) return { ok: true, result: true };
    return this.host.withMessage(params, "message to edit", (message) => {
      if (message.content.kind !== "widget") return refused(NO_WIDGET);
      const widget = message.content.widget;
      if (params.public_data !== undefined) {
        const shared = widget.sharedId ? this.shared.get(widget.sharedId) : undefined;
        if (shared) {
          const tooSoon = this.tooSoon(shared);
          if (tooSoon) return refused(tooSoon);
          shared.publicData = String(params.public_data);
        } else widget.publicData = String(params.public_data);
      }
      if (params.chat_data !== undefined) widget.chatData = String(params.chat_data);
      return { ok: true, result: true };
    });
  }

  private async editSharedData(params: Record<string, unknown>): Promise<Outcome> {
    const shared = this.shared.get(String(params.widget_id ?? ""));
    if (!shared) return refused(WIDGET_ID_INVALID);
    const data = widgetDataProblem(params.public_data);
    if (data) return refused(data);
    const tooSoon = this.tooSoon(shared);
    if (tooSoon) return refused(tooSoon);
    shared.publicData = String(params.public_data ?? "");
    return { ok: true, result: true };
  }

  /** answerWidgetQuery: a query seen in the last 15 seconds, answered once, with at most 1,024 bytes. */
  private async answerQuery(params: Record<string, unknown>): Promise<Outcome> {
    const data = widgetDataProblem(params.data);
    if (data) return refused(data);
    const id = String(params.widget_query_id ?? "");
    if (!this.host.queries.recent("widget", id)) return refused(QUERY_TOO_OLD);
    this.host.queries.close("widget", id);
    return { ok: true, result: true };
  }

  private tooSoon(shared: SharedWidget): Refusal | undefined {
    const now = Date.now();
    if (now - shared.editedAt < SHARED_EDIT_MS) return tooManyRequests(1);
    shared.editedAt = now;
    return undefined;
  }
}

function size(params: Record<string, unknown>): { width?: number; height?: number } {
  return {
    ...(typeof params.width === "number" ? { width: params.width } : {}),
    ...(typeof params.height === "number" ? { height: params.height } : {}),
  };
}

function optionalText(value: unknown): string {
  return value === undefined || value === null ? "" : String(value);
}

function refused(refusal: Refusal): Outcome {
  return { ok: false, refusal };
}
