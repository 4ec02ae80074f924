import * as z from "zod";
import { MODEL_CATALOG } from "./model-catalog.ts";

export const PROVIDERS = ["openai", "anthropic", "claude-agent", "codex-agent", "workers-ai"] as const;
export const providerSchema = z.enum(PROVIDERS);
export type Provider = z.infer<typeof providerSchema>;

export function isProvider(name: string): name is Provider {
  return (PROVIDERS as readonly string[]).includes(name);
}

/** Providers whose adapter makes one model call, so that a turn can move to another mid-way (fallbacks). */
export const MODEL_PROVIDERS = ["openai", "anthropic", "workers-ai"] as const satisfies readonly Provider[];
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];
const modelProviderSchema = z.enum(MODEL_PROVIDERS);

export function isModelProvider(name: string): name is ModelProvider {
  return (MODEL_PROVIDERS as readonly string[]).includes(name);
}

/** Providers that run an agent in the chat's container (their own loop, a shell, files): `/agent` uses one. */
const AGENT_PROVIDERS = ["claude-agent", "codex-agent"] as const satisfies readonly Provider[];
export type AgentProvider = (typeof AGENT_PROVIDERS)[number];
export const agentProviderSchema = z.enum(AGENT_PROVIDERS);

export function isAgentProvider(name: string): name is AgentProvider {
  return (AGENT_PROVIDERS as readonly string[]).includes(name);
}

/** One step of a fallback chain: a model provider and, optionally, its model (else the provider's default). */
export const fallbackSchema = z.strictObject({
  provider: modelProviderSchema,
  model: z.string().trim().min(1).max(200).optional(),
});
export type Fallback = z.infer<typeof fallbackSchema>;
/** The longest fallback chain, after the chat's own model. */
export const MAX_FALLBACKS = 4;

/** Each provider's model when neither the chat nor DEFAULT_MODEL names one (the catalog's, src/config/model-catalog.ts). */
export const DEFAULT_MODELS: Record<Provider, string> = {
  openai: MODEL_CATALOG.openai.default,
  anthropic: MODEL_CATALOG.anthropic.default,
  "claude-agent": MODEL_CATALOG.anthropic.default,
  // The Codex CLI's own default model (codex-cli 0.169).
  "codex-agent": "gpt-6.1-sol",
  // Function calling, 128k context, and fast on Workers AI.
  "workers-ai": MODEL_CATALOG["workers-ai"].default,
};
