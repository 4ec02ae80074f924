import * as z from "zod";
import { widgetQuerySchema } from "./bot-api-10-5.ts";
import type {
  ChatDescription,
  GuestQuery,
  IncomingMedia,
  IncomingMessage,
  TelegramFileRef,
} from "./incoming-message.ts";

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

/** The file fields every Telegram file object has; `file_size` may be missing. */
const fileFields = {
  file_id: z.string().min(1).max(500),
  file_unique_id: z.string().min(1).max(200),
  file_size: z.number().int().nonnegative().optional(),
};
const photoSizeSchema = z.looseObject({
  ...fileFields,
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
});
const documentSchema = z.looseObject({
  ...fileFields,
  file_name: z.string().max(1000).optional(),
  mime_type: z.string().max(200).optional(),
});
const recordingSchema = z.looseObject({
  ...fileFields,
  duration: z.number().nonnegative().optional(),
  mime_type: z.string().max(200).optional(),
  file_name: z.string().max(1000).optional(),
  /** Telegram's own speech recognition, when it made one. */
  transcript: z.string().max(100_000).optional(),
});

/** Where a forwarded message came from (MessageOrigin): a user, a hidden user, a chat or a channel. */
const forwardOriginSchema = z.looseObject({
  type: z.string(),
  sender_user: userSchema.optional(),
  sender_user_name: z.string().optional(),
  sender_chat: chatSchema.optional(),
  chat: chatSchema.optional(),
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
  media_group_id: z.string().max(200).optional(),
  photo: z.array(photoSizeSchema).max(20).optional(),
  document: documentSchema.optional(),
  voice: recordingSchema.optional(),
  audio: recordingSchema.optional(),
  video_note: recordingSchema.optional(),
  forward_origin: forwardOriginSchema.optional(),
});

const messageSchema = baseMessageSchema.extend({ reply_to_message: baseMessageSchema.optional() });
export type TelegramMessage = z.infer<typeof messageSchema>;
type TelegramUser = z.infer<typeof userSchema>;

/**
 * A press of an inline button: who pressed, on which message, and the button's data. With the bot's
 * `callback_query_mode` (Bot API 10.5) a press on one of its own messages may come with `inline_message_id` and no
 * `message`; `chat_instance` (always there) names the chat either way.
 */
const callbackQuerySchema = z.looseObject({
  id: z.string().min(1).max(200),
  from: userSchema,
  chat_instance: z.string().max(200).optional(),
  inline_message_id: z.string().min(1).max(200).optional(),
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

/** A press of a draft's stop control (Bot API 10.3): the private chat, its topic, and which draft. */
const generationStoppedSchema = z.looseObject({
  chat: chatSchema,
  message_thread_id: z.number().int().optional(),
  draft_id: z.number().int(),
});

export const updateSchema = z.looseObject({
  update_id: z.number().int().nonnegative(),
  message: messageSchema.optional(),
  callback_query: callbackQuerySchema.optional(),
  /** Bot API 10.0: the bot was summoned as a guest in a chat it is not in; answered with answerGuestQuery. */
  guest_message: messageSchema.extend({ guest_query_id: z.string().min(1).max(200) }).optional(),
  stopped_message_generation: generationStoppedSchema.optional(),
  /** Bot API 10.4: a widget of the bot's sent a query (a tap); answered with answerWidgetQuery within 15 seconds. */
  widget_query: widgetQuerySchema.optional(),
});
export type TelegramUpdate = z.infer<typeof updateSchema>;

/** The message a button was pressed on: one in a chat, or one Telegram names only by its inline id (10.5). */
export type PressedMessage = { kind: "message"; messageId: number } | { kind: "inline"; inlineMessageId: string };

/** A button press the bot handles: on one of its messages in a chat, with the button's data. */
export interface ButtonPress {
  queryId: string;
  userId: number;
  /** The presser's name as Telegram gave it. */
  userName?: string;
  chat: { id: number; type: ChatDescription["type"] };
  threadId?: number;
  message: PressedMessage;
  /** Telegram's id of the chat the message is in (`chat_instance`), when it sent one. */
  chatInstance?: string;
  data: string;
}

/**
 * A press on a message Telegram names only by its inline id (no `message`, Bot API 10.5's callback_query_mode): the
 * chat it belongs to is found from `chat_instance` (see press-routes.ts).
 */
export interface InlinePress {
  queryId: string;
  userId: number;
  userName: string;
  inlineMessageId: string;
  chatInstance: string | undefined;
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
    userName: displayName(query.from),
    chat: { id: message.chat.id, type: message.chat.type },
    ...(isForumTopic && message.message_thread_id !== undefined ? { threadId: message.message_thread_id } : {}),
    message: { kind: "message", messageId: message.message_id },
    ...(query.chat_instance !== undefined ? { chatInstance: query.chat_instance } : {}),
    data: query.data,
  };
}

/** A press without `message` (its data and inline id kept), or undefined for any other update. */
export function inlinePressOf(update: TelegramUpdate): InlinePress | undefined {
  const query = update.callback_query;
  if (!query || query.message || query.inline_message_id === undefined || query.data === undefined) return undefined;
  return {
    queryId: query.id,
    userId: query.from.id,
    userName: displayName(query.from),
    inlineMessageId: query.inline_message_id,
    chatInstance: query.chat_instance,
    data: query.data,
  };
}

/** A tap in one of the bot's widgets: who, which message's widget in which chat, and the widget's data. */
export interface WidgetTap {
  queryId: string;
  userId: number;
  userName: string;
  chatId: number;
  messageId: number;
  data: string;
}

/** A widget query from a widget in a chat's message, or undefined (none, or one in an inline message). */
export function widgetTapOf(update: TelegramUpdate): WidgetTap | undefined {
  const query = update.widget_query;
  if (!query?.chat || query.message_id === undefined || query.chat.type === "channel") return undefined;
  return {
    queryId: query.id,
    userId: query.from.id,
    userName: displayName(query.from),
    chatId: query.chat.id,
    messageId: query.message_id,
    data: query.data,
  };
}

/**
 * A guest query: who summoned the bot, in what kind of chat, with what words (the bot's `@name` removed) and under
 * which message. Undefined for an update without one, or one without a sender (an anonymous admin, a channel).
 */
export function guestQueryOf(update: TelegramUpdate, botUsername: string): GuestQuery | undefined {
  const message = update.guest_message;
  if (!message?.from || message.from.is_bot || message.chat.type === "channel") return undefined;
  const mention = new RegExp(`@${botUsername}(?![a-zA-Z0-9_])`, "gi");
  const text = (message.text ?? message.caption ?? "").replace(mention, " ").replace(/\s+/g, " ").trim();
  const reply = message.reply_to_message;
  const replyText = reply?.text ?? reply?.caption;
  return {
    updateId: update.update_id,
    queryId: message.guest_query_id,
    from: {
      id: message.from.id,
      name: displayName(message.from),
      ...(message.from.username ? { username: message.from.username } : {}),
    },
    chatType: message.chat.type,
    text,
    ...(reply && replyText !== undefined
      ? { replyTo: { ...(reply.from ? { fromName: displayName(reply.from) } : {}), text: replyText } }
      : {}),
  };
}

/**
 * A person pressed the stop control of a draft. Drafts go to private chats only, so the person is the chat's user
 * (the update names no one else).
 */
export interface GenerationStop {
  chatId: number;
  threadId?: number;
  draftId: number;
  userId: number;
}

export function generationStopOf(update: TelegramUpdate): GenerationStop | undefined {
  const stopped = update.stopped_message_generation;
  if (stopped?.chat.type !== "private") return undefined;
  // A topic counts where messages count it: in a chat with topics (see incomingMessageOf).
  const threadId = stopped.chat.is_forum === true ? stopped.message_thread_id : undefined;
  return {
    chatId: stopped.chat.id,
    ...(threadId === undefined ? {} : { threadId }),
    draftId: stopped.draft_id,
    userId: stopped.chat.id,
  };
}

function displayName(user: TelegramUser): string {
  return [user.first_name, user.last_name].filter(Boolean).join(" ") || user.username || String(user.id);
}

/**
 * The message this bot handles in an update, or undefined for update kinds it ignores (edited messages, channel
 * posts, member changes, messages with neither text, caption nor a file it reads, service messages).
 */
export function incomingMessageOf(update: TelegramUpdate): IncomingMessage | undefined {
  const message = update.message;
  if (!message || message.chat.type === "channel") return undefined;
  const text = message.text ?? message.caption ?? "";
  const media = mediaOf(message);
  if (text.trim() === "" && media.length === 0) return undefined;
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
            ...(reply.from?.is_bot ? { fromBot: true } : {}),
            text: replyText,
          },
        }
      : {}),
    ...(media.length > 0 ? { media } : {}),
    ...(message.media_group_id !== undefined ? { mediaGroupId: message.media_group_id } : {}),
    ...(message.forward_origin ? { forwardedFrom: originName(message.forward_origin).slice(0, 100) } : {}),
    ...commandOf(text),
  };
}

const IMAGE_FILE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

function fileRef(file: { file_id: string; file_unique_id: string; file_size?: number | undefined }): TelegramFileRef {
  return {
    fileId: file.file_id,
    fileUniqueId: file.file_unique_id,
    ...(file.file_size !== undefined ? { size: file.file_size } : {}),
  };
}

/** The files of a message the bot reads: photos, image files (as photos), recordings and other files. */
function mediaOf(message: TelegramMessage): IncomingMedia[] {
  const media: IncomingMedia[] = [];
  if (message.photo && message.photo.length > 0) {
    media.push({
      kind: "photo",
      mediaType: "image/jpeg",
      sizes: message.photo.map((size) => ({ ...fileRef(size), width: size.width, height: size.height })),
    });
  }
  const document = message.document;
  if (document) {
    const mediaType = document.mime_type?.toLowerCase() ?? "application/octet-stream";
    if (IMAGE_FILE_TYPES.has(mediaType)) media.push({ kind: "photo", mediaType, sizes: [fileRef(document)] });
    else media.push({ kind: "document", file: fileRef(document), mediaType, fileName: document.file_name ?? "file" });
  }
  const recordings = [
    ["voice", message.voice, "audio/ogg"],
    ["audio", message.audio, "audio/mpeg"],
    ["video_note", message.video_note, "video/mp4"],
  ] as const;
  for (const [source, recording, fallbackType] of recordings) {
    if (!recording) continue;
    media.push({
      kind: "recording",
      source,
      file: fileRef(recording),
      mediaType: recording.mime_type?.toLowerCase() ?? fallbackType,
      ...(recording.file_name ? { fileName: recording.file_name } : {}),
      ...(recording.duration !== undefined ? { durationSeconds: recording.duration } : {}),
      ...(recording.transcript?.trim() ? { transcript: recording.transcript.trim() } : {}),
    });
  }
  return media;
}

/** `/name@bot args` at the start of a text. The `@bot` part is kept in the name for the addressing check. */
function commandOf(text: string): { command: { name: string; args: string } } | Record<string, never> {
  const match = /^\/([a-zA-Z0-9_]{1,64})(@[a-zA-Z0-9_]{3,64})?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return {};
  return { command: { name: `${match[1]!.toLowerCase()}${match[2] ?? ""}`, args: (match[3] ?? "").trim() } };
}

/** A forwarded message's origin, named: the channel or chat, the person, or "a hidden sender". */
function originName(origin: z.infer<typeof forwardOriginSchema>): string {
  const chat = origin.chat ?? origin.sender_chat;
  if (chat) return chat.title ?? chat.username ?? `chat ${chat.id}`;
  if (origin.sender_user) return displayName(origin.sender_user);
  return origin.sender_user_name ?? "a hidden sender";
}
