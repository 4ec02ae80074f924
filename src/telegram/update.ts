import * as z from "zod";

/**
 * The part of a Telegram `Update` this bot reads. Objects are loose: Telegram adds fields over time, and an update
 * with fields we do not know is still an update.
 */
const userSchema = z.looseObject({
  id: z.number().int(),
  is_bot: z.boolean().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});

const chatSchema = z.looseObject({
  id: z.number().int(),
  type: z.enum(["private", "group", "supergroup", "channel"]),
  title: z.string().optional(),
  username: z.string().optional(),
  first_name: z.string().optional(),
  is_forum: z.boolean().optional(),
});

const entitySchema = z.looseObject({
  type: z.string(),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
  user: userSchema.optional(),
});

const baseMessageSchema = z.looseObject({
  message_id: z.number().int(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  date: z.number().int(),
  chat: chatSchema,
  from: userSchema.optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(entitySchema).optional(),
  caption_entities: z.array(entitySchema).optional(),
});

const messageSchema = baseMessageSchema.extend({ reply_to_message: baseMessageSchema.optional() });
export type TelegramMessage = z.infer<typeof messageSchema>;
export type TelegramUser = z.infer<typeof userSchema>;

/** A press of an inline button: who pressed, on which message, and the button's data. */
const callbackQuerySchema = z.looseObject({
  id: z.string().min(1).max(200),
  from: userSchema,
  message: z
    .looseObject({
      message_id: z.number().int(),
      message_thread_id: z.number().int().optional(),
      is_topic_message: z.boolean().optional(),
      chat: chatSchema,
    })
    .optional(),
  data: z.string().max(64).optional(),
});

export const updateSchema = z.looseObject({
  update_id: z.number().int().nonnegative(),
  message: messageSchema.optional(),
  callback_query: callbackQuerySchema.optional(),
});
export type TelegramUpdate = z.infer<typeof updateSchema>;

/** A button press the bot handles: on one of its messages in a chat, with the button's data. */
export interface ButtonPress {
  queryId: string;
  userId: number;
  chat: { id: number; type: ChatDescription["type"] };
  threadId?: number;
  messageId: number;
  data: string;
}

export function buttonPressOf(update: TelegramUpdate): ButtonPress | undefined {
  const query = update.callback_query;
  const message = query?.message;
  if (!query || !message || query.data === undefined || message.chat.type === "channel") return undefined;
  const isForumTopic = message.chat.is_forum === true && message.is_topic_message === true;
  return {
    queryId: query.id,
    userId: query.from.id,
    chat: { id: message.chat.id, type: message.chat.type },
    ...(isForumTopic && message.message_thread_id !== undefined ? { threadId: message.message_thread_id } : {}),
    messageId: message.message_id,
    data: query.data,
  };
}

/** Where an answer goes: a chat, and in forum supergroups one topic of it. */
export interface ChatTarget {
  chatId: number;
  threadId?: number;
}

/** What the bot knows of a chat, from its latest message. */
export interface ChatDescription {
  id: number;
  type: "private" | "group" | "supergroup";
  title?: string;
  isForum: boolean;
}

/** A text message or caption the bot may answer, reduced to what the chat's object needs. */
export interface IncomingMessage {
  updateId: number;
  messageId: number;
  chat: ChatDescription;
  threadId?: number;
  from?: { id: number; name: string; username?: string };
  text: string;
  /** Unix seconds, as Telegram sent it. */
  date: number;
  replyTo?: { fromId?: number; fromName?: string; text: string };
  command?: { name: string; args: string };
}

export function displayName(user: TelegramUser): string {
  return [user.first_name, user.last_name].filter(Boolean).join(" ") || user.username || String(user.id);
}

/**
 * The message this bot handles in an update, or undefined for update kinds it ignores (edited messages, channel
 * posts, member changes, messages without text or caption, service messages).
 */
export function incomingMessageOf(update: TelegramUpdate): IncomingMessage | undefined {
  const message = update.message;
  if (!message || message.chat.type === "channel") return undefined;
  const text = message.text ?? message.caption;
  if (text === undefined || text.trim() === "") return undefined;
  const isForumTopic = message.chat.is_forum === true && message.is_topic_message === true;
  const reply = message.reply_to_message;
  const replyText = reply?.text ?? reply?.caption;
  return {
    updateId: update.update_id,
    messageId: message.message_id,
    chat: {
      id: message.chat.id,
      type: message.chat.type,
      ...(message.chat.title ? { title: message.chat.title } : {}),
      isForum: message.chat.is_forum === true,
    },
    ...(isForumTopic && message.message_thread_id !== undefined ? { threadId: message.message_thread_id } : {}),
    ...(message.from
      ? {
          from: {
            id: message.from.id,
            name: displayName(message.from),
            ...(message.from.username ? { username: message.from.username } : {}),
          },
        }
      : {}),
    text,
    date: message.date,
    // A forum topic's messages reply to the topic's opening service message; that is not a real reply.
    ...(reply && replyText !== undefined && !(isForumTopic && reply.message_id === message.message_thread_id)
      ? {
          replyTo: {
            ...(reply.from ? { fromId: reply.from.id, fromName: displayName(reply.from) } : {}),
            text: replyText,
          },
        }
      : {}),
    ...commandOf(text),
  };
}

/** `/name@bot args` at the start of a text. The `@bot` part is kept in the name for the addressing check. */
function commandOf(text: string): { command: { name: string; args: string } } | Record<string, never> {
  const match = /^\/([a-zA-Z0-9_]{1,64})(@[a-zA-Z0-9_]{3,64})?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return {};
  return { command: { name: `${match[1]!.toLowerCase()}${match[2] ?? ""}`, args: (match[3] ?? "").trim() } };
}
