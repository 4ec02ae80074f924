import * as z from "zod";
import { historyMessageSchema } from "./messages.ts";

/** A tool as the model sees it: its name, what it does and a JSON Schema of its arguments. */
export const modelToolSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string().max(4000),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ModelTool = z.infer<typeof modelToolSchema>;

/**
 * A chat's skill as an agent gets it: installed by the runner as a native skill (a `SKILL.md`) for this run. Only the
 * skills read on demand come this way; those the chat gives the model whole are in `systemPrompt` already.
 */
const runnerSkillSchema = z.object({
  name: z
    .string()
    .max(64)
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/),
  description: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, "one line"),
  body: z.string().min(1).max(200_000),
});
export type RunnerSkill = z.infer<typeof runnerSkillSchema>;

/** The agents a runner can run, by the provider name a chat uses for them. */
const RUNNER_AGENTS = ["claude-agent", "codex-agent"] as const;
const runnerAgentSchema = z.enum(RUNNER_AGENTS);
export type RunnerAgent = z.infer<typeof runnerAgentSchema>;

/**
 * One agent run, as the Worker posts it to the agent runner's `POST /run` (JSON). `history` ends with the turn's new
 * user message(s); `sessionId` resumes the runner's own session (of that agent); `toolCallback` is where the runner
 * calls the bot's tools back, with the per-run secret it must present. `agent` is which agent runs the turn; a payload
 * without one (from a Worker older than Codex) means `claude-agent`. `skills` are the chat's skills the agent reads
 * on demand, which the runner makes its only native skills for the run.
 */
export const runPayloadSchema = z.object({
  chatKey: z.string().min(1).max(200),
  agent: runnerAgentSchema.optional(),
  model: z.string().min(1).max(200),
  systemPrompt: z.string().max(100_000),
  history: z.array(historyMessageSchema).min(1),
  tools: z.array(modelToolSchema),
  sessionId: z.string().min(1).max(500).optional(),
  toolCallback: z.object({ url: z.url(), token: z.string().min(16).max(500) }).optional(),
  skills: z.array(runnerSkillSchema).max(100).optional(),
});
export type RunPayload = z.infer<typeof runPayloadSchema>;

/** A tool call from a runner back to the bot: the tool's name and the model's argument text. */
export const toolCallSchema = z.strictObject({ name: z.string().min(1).max(64), arguments: z.string().max(200_000) });

/** What a tool call returns, to a model or to a runner. */
export const toolOutcomeSchema = z.object({ content: z.string(), isError: z.boolean() });
export type ToolOutcome = z.infer<typeof toolOutcomeSchema>;

/** The host a container reaches the Worker by: its outbound handler serves it, no public route involved. */
export const WORKER_CALLBACK_HOST = "worker.internal";

/** Where a runner posts one tool call for a chat, under the callback's base URL. */
export function agentToolsPath(chatKey: string): string {
  return `/agent/tools/${encodeURIComponent(chatKey)}`;
}
