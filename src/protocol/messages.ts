import * as z from "zod";

/**
 * The provider-neutral conversation. History is stored in this shape and every adapter converts it to its own API,
 * so a chat can move between providers and keep its conversation.
 */
const toolCallSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  /** The arguments as the model wrote them: a JSON text, kept verbatim so it can be replayed to any provider. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** Where a file's bytes live: an R2 key (`telegram/<file_unique_id>`, `generated/<id>`), never the bytes themselves. */
const mediaKeySchema = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[A-Za-z0-9_./-]+$/);
const mediaTypeSchema = z.string().min(1).max(200);

/**
 * A file that came with a user message (or that a tool made), in one provider-neutral shape. History holds only the
 * reference, the size and the media type; adapters load the bytes from R2 when they build a request.
 */
const attachmentSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("image"),
    key: mediaKeySchema,
    mediaType: mediaTypeSchema,
    size: z.number().int().nonnegative(),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
  }),
  z.object({
    kind: z.literal("transcript"),
    /** The recording, when it was downloaded (Telegram's own transcript needs no download). */
    key: mediaKeySchema.optional(),
    mediaType: mediaTypeSchema,
    size: z.number().int().nonnegative(),
    /** What was recorded: a voice note, an audio file or a round video note. */
    source: z.enum(["voice", "audio", "video_note"]),
    /** Machine-made text; the model is told so. */
    text: z.string().max(100_000),
    transcribedBy: z.enum(["telegram", "transcription-api"]),
    durationSeconds: z.number().nonnegative().optional(),
  }),
  z.object({
    kind: z.literal("document"),
    key: mediaKeySchema,
    mediaType: mediaTypeSchema,
    size: z.number().int().nonnegative(),
    fileName: z.string().max(300),
  }),
]);
export type Attachment = z.infer<typeof attachmentSchema>;

/**
 * Provenance: where content from outside the chat came from ("a web page", "the MCP server docs", "a file's text"),
 * on a message that holds it or was written after reading it. It is stored with the message, so it outlives the
 * turn: a turn whose window (or summary) holds such a message cannot act beyond the chat without the person's say.
 */
const outsideSchema = z.string().min(1).max(200).optional();

export const historyMessageSchema = z.discriminatedUnion("role", [
  // Rows written before attachments existed are plain `{ role, content }` and stay valid.
  z.object({
    role: z.literal("user"),
    content: z.string(),
    attachments: z.array(attachmentSchema).max(20).optional(),
    outside: outsideSchema,
    /** Who wrote it, in a group: a turn does not act on what another member wrote without its own sender's say. */
    from: z.number().int().optional(),
  }),
  z.object({
    role: z.literal("assistant"),
    content: z.string(),
    toolCalls: z.array(toolCallSchema).optional(),
    outside: outsideSchema,
  }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string().min(1).max(200),
    toolName: z.string().min(1).max(200),
    content: z.string(),
    isError: z.boolean().optional(),
    outside: outsideSchema,
  }),
]);
export type HistoryMessage = z.infer<typeof historyMessageSchema>;
export type UserMessage = Extract<HistoryMessage, { role: "user" }>;
export type AssistantMessage = Extract<HistoryMessage, { role: "assistant" }>;
export type ToolResultMessage = Extract<HistoryMessage, { role: "tool" }>;

/** Parses a tool call's argument text into an object; anything else becomes an empty object. */
export function parseToolArguments(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
