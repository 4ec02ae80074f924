import * as z from "zod";
import type { BotApi } from "./bot-api.ts";

/**
 * What this bot uses of Bot API 10.4 and 10.5, which grammY's types (10.3) do not know: the shapes as the fake's table
 * has them (scripts/bot-api/spec/bot-api-10.4-10.5.json, transcribed from Telegram's pages), typed here once. Calls
 * go through BotApi.callByName (its transformers apply); what arrives from Telegram is read through zod.
 */

/** 10.4: an inline keyboard as a widget or an ephemeral message carries it. */
interface InlineKeyboardMarkup {
  inline_keyboard: { text: string; callback_data: string }[][];
}

/**
 * 10.4: an ephemeral message goes to one person. With `callback_query_id` alone it is a private reply to a button
 * press, in the chat the press came from, seen only by the presser (`chat_id` may then be left out).
 */
interface EphemeralMessageParameters {
  callback_query_id?: string;
  receiver_user_id?: number;
}

interface EphemeralSendMessageParams {
  chat_id?: number;
  text: string;
  ephemeral_message_parameters: EphemeralMessageParameters;
}

/** 10.4: sendWidget: one self-contained HTML document (limits in src/widgets/widget-rules.ts), private chats only. */
interface SendWidgetParams {
  chat_id: number;
  message_thread_id?: number;
  html: string;
  width?: number;
  height?: number;
  /** Seen wherever the widget is shown; at most 1,024 bytes. */
  public_data?: string;
  /** Tied to this message, seen in this chat only; at most 1,024 bytes. */
  chat_data?: string;
  caption?: string;
  /** The widget may send queries (`widget_query` updates) to the bot. */
  allow_queries?: boolean;
  reply_markup?: InlineKeyboardMarkup;
}

/** 10.4: a widget message's new state (either part; absent: unchanged). */
interface EditMessageWidgetDataParams {
  chat_id?: number;
  message_id?: number;
  inline_message_id?: string;
  public_data?: string;
  chat_data?: string;
}

/** 10.4: the answer to a widget's query, within 15 seconds; `data` at most 1,024 bytes. */
interface AnswerWidgetQueryParams {
  widget_query_id: string;
  data?: string;
}

const sentMessageSchema = z.looseObject({ message_id: z.number().int() });
type SentMessage = z.infer<typeof sentMessageSchema>;

/** The 10.4 methods this bot calls, typed as the table has them. */
interface Api105 {
  sendWidget(params: SendWidgetParams): Promise<SentMessage>;
  editMessageWidgetData(params: EditMessageWidgetDataParams): Promise<true>;
  answerWidgetQuery(params: AnswerWidgetQueryParams): Promise<true>;
  sendMessage(params: EphemeralSendMessageParams): Promise<SentMessage>;
}

/** The 10.4 methods on a BotApi, through the same transformers (retries, message defaults) as every other call. */
export function api105(api: BotApi): Api105 {
  const sent = async (method: string, params: object) =>
    sentMessageSchema.parse(await api.callByName(method, { ...params }));
  const done = async (method: string, params: object): Promise<true> => {
    z.literal(true).parse(await api.callByName(method, { ...params }));
    return true;
  };
  return {
    sendWidget: (params) => sent("sendWidget", params),
    sendMessage: (params) => sent("sendMessage", params),
    editMessageWidgetData: (params) => done("editMessageWidgetData", params),
    answerWidgetQuery: (params) => done("answerWidgetQuery", params),
  };
}

const userSchema = z.looseObject({
  id: z.number().int(),
  is_bot: z.boolean().optional(),
  first_name: z.string().optional(),
  username: z.string().optional(),
});

/** 10.4: a query a widget sent (a tap): who, which message's widget, and its data (1-64 bytes). */
export const widgetQuerySchema = z.looseObject({
  id: z.string().min(1).max(200),
  from: userSchema,
  chat_instance: z.string().max(200).optional(),
  type: z.unknown().optional(),
  data: z.string().max(64),
  chat: z.looseObject({ id: z.number().int(), type: z.enum(["private", "group", "supergroup", "channel"]) }).optional(),
  message_id: z.number().int().optional(),
  inline_message_id: z.string().max(200).optional(),
  widget_id: z.string().max(200).optional(),
});

/**
 * 10.5: getMe returns BotFullInfo, where the bot-only fields moved from User. The fields this bot reads; whether each
 * is always present no page said, so all are optional here.
 */
export const botFullInfoSchema = z.looseObject({
  id: z.number().int(),
  username: z.string().min(1),
  supports_guest_queries: z.boolean().optional(),
  has_topics_enabled: z.boolean().optional(),
  can_read_all_group_messages: z.boolean().optional(),
});
