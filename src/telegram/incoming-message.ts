import * as z from "zod";

/**
 * What the chat's object keeps of an update: a message reduced to what it needs, and where answers go. These are
 * stored (the inbox, the chat's meta) and read back through the same schemas.
 */

/** Where an answer goes: a chat, and in forum supergroups one topic of it. */
export const chatTargetSchema = z.object({
  chatId: z.number().int(),
  threadId: z.number().int().optional(),
});
export type ChatTarget = z.infer<typeof chatTargetSchema>;

/** What the bot knows of a chat, from its latest message. */
export const chatDescriptionSchema = z.object({
  id: z.number().int(),
  type: z.enum(["private", "group", "supergroup"]),
  title: z.string().optional(),
  isForum: z.boolean(),
});
export type ChatDescription = z.infer<typeof chatDescriptionSchema>;

/** Where a file is in Telegram: `fileId` to download it, `fileUniqueId` to name it (stable across bots and time). */
const telegramFileRefSchema = z.object({
  fileId: z.string(),
  fileUniqueId: z.string(),
  /** Bytes, when Telegram said. */
  size: z.number().optional(),
});
export type TelegramFileRef = z.infer<typeof telegramFileRefSchema>;

/**
 * A file that came with a message. A photo lists Telegram's sizes (the chat object picks one); an image sent as a
 * file counts as a photo of one size; recordings may carry Telegram's own transcript.
 */
const incomingMediaSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("photo"),
    mediaType: z.string(),
    sizes: z.array(telegramFileRefSchema.extend({ width: z.number().optional(), height: z.number().optional() })),
  }),
  z.object({
    kind: z.literal("recording"),
    source: z.enum(["voice", "audio", "video_note"]),
    file: telegramFileRefSchema,
    mediaType: z.string(),
    fileName: z.string().optional(),
    durationSeconds: z.number().optional(),
    transcript: z.string().optional(),
  }),
  z.object({ kind: z.literal("document"), file: telegramFileRefSchema, mediaType: z.string(), fileName: z.string() }),
]);
export type IncomingMedia = z.infer<typeof incomingMediaSchema>;

/** A text message, caption or file the bot may answer, reduced to what the chat's object needs. */
export const incomingMessageSchema = z.object({
  updateId: z.number().int(),
  messageId: z.number().int(),
  chat: chatDescriptionSchema,
  threadId: z.number().int().optional(),
  from: z.object({ id: z.number().int(), name: z.string(), username: z.string().optional() }).optional(),
  text: z.string(),
  /** Unix seconds, as Telegram sent it. */
  date: z.number(),
  replyTo: z
    .object({
      fromId: z.number().optional(),
      fromName: z.string().optional(),
      /** The quoted message is a bot's (this bot's answer, most likely). */
      fromBot: z.boolean().optional(),
      text: z.string(),
    })
    .optional(),
  /** The message was forwarded: from whom (a channel, a chat, a person). Its words are not the sender's own. */
  forwardedFrom: z.string().max(100).optional(),
  command: z.object({ name: z.string(), args: z.string() }).optional(),
  media: z.array(incomingMediaSchema).optional(),
  /** The album this message is part of: an album's messages are answered as one turn. */
  mediaGroupId: z.string().optional(),
});
export type IncomingMessage = z.infer<typeof incomingMessageSchema>;

/**
 * A guest query (Bot API 10.0): someone summoned the bot by name in a chat it is not in. Kept only until it is
 * answered, in the inbox of the summoner's own private chat, whose settings and budget it uses.
 */
export const guestQuerySchema = z.object({
  updateId: z.number().int(),
  /** For `answerGuestQuery`. */
  queryId: z.string().min(1).max(200),
  from: z.object({ id: z.number().int(), name: z.string(), username: z.string().optional() }),
  /** The kind of chat it was summoned in (never stored with its id or title). */
  chatType: z.enum(["private", "group", "supergroup"]),
  /** What the summoner wrote, the bot's name removed. */
  text: z.string(),
  /** The message it was summoned under, if any. */
  replyTo: z.object({ fromName: z.string().optional(), text: z.string() }).optional(),
});
export type GuestQuery = z.infer<typeof guestQuerySchema>;
