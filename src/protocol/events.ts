import * as z from "zod";
import { historyMessageSchema } from "./messages.ts";

/**
 * The one event stream every adapter speaks, the agent container included (it imports this very module).
 * The seeds' five kinds (`session_init`, `result`, `tool_start`, `tool_progress`, `adapter_stderr`) plus what a real
 * run needs: `text_delta` (the answer as it streams), `message` (a conversation message to append to history),
 * `usage`, `finish` (how the answer ended) and a classified `error`.
 */
export const errorClassificationSchema = z.enum([
  "auth",
  "quota",
  "transport",
  "timeout",
  "invalid_request",
  "overloaded",
  "internal",
  "cancelled",
]);
export type ErrorClassification = z.infer<typeof errorClassificationSchema>;

export const TOOL_PREVIEW_LENGTH = 200;
/** The message of the `quota` error a turn gets when its chat's daily budget runs out during it. */
export const BUDGET_RAN_OUT = "the chat's daily budget ran out during the turn";
/** The longest text one `text_delta` carries; a runner splits longer pieces. */
export const MAX_DELTA_LENGTH = 16_000;

/** The longest explanation of a refusal an event carries (the provider's words, shown to the person). */
export const MAX_EXPLANATION_LENGTH = 2000;

/**
 * How a model's answer ended, in one provider-neutral form every adapter maps its provider's reason into:
 * - `stop`: a natural end (or a stop sequence);
 * - `length`: a limit cut it, the model's output cap (`output`) or its context window (`context`); `toolCall` names the
 *   tool whose call was being written when it was cut (set by the tool loop, which never runs such a call);
 * - `tool_calls`: it asked for tools (a call's end, never a turn's);
 * - `content_filter`: the provider's filter withheld content;
 * - `refusal`: the model or the provider's safety system declined, with the provider's explanation when it gives one;
 * - `paused`: the provider paused a long turn of its own (its server tools) that asking again continues;
 * - `other`: a reason this mapping does not know, with the provider's raw value.
 */
const finishReasonSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("stop") }),
  z.object({
    kind: z.literal("length"),
    limit: z.enum(["output", "context"]),
    toolCall: z.string().max(300).optional(),
  }),
  z.object({ kind: z.literal("tool_calls") }),
  z.object({ kind: z.literal("content_filter") }),
  z.object({ kind: z.literal("refusal"), explanation: z.string().max(MAX_EXPLANATION_LENGTH).optional() }),
  z.object({ kind: z.literal("paused") }),
  z.object({ kind: z.literal("other"), raw: z.string().max(200) }),
]);
export type FinishReason = z.infer<typeof finishReasonSchema>;

export const agentEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("session_init"), sessionId: z.string().min(1).max(500) }),
  z.object({ type: z.literal("result"), text: z.string() }),
  /** How the answer ended; comes right before the `result` it describes (an adapter that cannot tell sends none). */
  z.object({ type: z.literal("finish"), reason: finishReasonSchema }),
  /** A piece of the answer as the model writes it; the `result` that ends the turn carries the whole text again. */
  z.object({ type: z.literal("text_delta"), text: z.string().max(MAX_DELTA_LENGTH) }),
  z.object({
    type: z.literal("tool_start"),
    toolName: z.string().max(300),
    preview: z.string().max(TOOL_PREVIEW_LENGTH),
  }),
  z.object({
    type: z.literal("tool_progress"),
    toolName: z.string().max(300),
    elapsedSeconds: z.number().nonnegative().optional(),
  }),
  z.object({ type: z.literal("adapter_stderr"), message: z.string() }),
  z.object({ type: z.literal("message"), message: historyMessageSchema }),
  z.object({
    type: z.literal("usage"),
    /** The model that made the call (a turn may move to a fallback), when the adapter knows it. */
    provider: z.string().max(50).optional(),
    model: z.string().max(200).optional(),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    cacheReadTokens: z.number().int().nonnegative().optional(),
    cacheWriteTokens: z.number().int().nonnegative().optional(),
    /** Web searches the provider ran on its own servers during the call (Anthropic's server tool): paid per search. */
    webSearches: z.number().int().nonnegative().optional(),
  }),
  z.object({
    type: z.literal("error"),
    message: z.string(),
    retryable: z.boolean(),
    classification: errorClassificationSchema,
  }),
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentErrorEvent = Extract<AgentEvent, { type: "error" }>;

/** The first `TOOL_PREVIEW_LENGTH` characters of a tool call's arguments, for status lines and logs. */
export function toolPreview(argumentsText: string): string {
  const compact = argumentsText.replace(/\s+/g, " ").trim();
  return compact.length <= TOOL_PREVIEW_LENGTH ? compact : `${compact.slice(0, TOOL_PREVIEW_LENGTH - 1)}…`;
}
