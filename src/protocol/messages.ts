import * as z from "zod";

/**
 * The provider-neutral conversation. History is stored in this shape and every adapter converts it to its own API,
 * so a chat can move between providers and keep its conversation.
 */
export const toolCallSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  /** The arguments as the model wrote them: a JSON text, kept verbatim so it can be replayed to any provider. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const historyMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string(),
    toolCalls: z.array(toolCallSchema).optional(),
  }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string().min(1).max(200),
    toolName: z.string().min(1).max(200),
    content: z.string(),
    isError: z.boolean().optional(),
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
