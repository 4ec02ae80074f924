import type { Provider } from "../config/providers.ts";
import type { Settings } from "../config/settings.ts";
import type { Env } from "../env.ts";
import { AnthropicAdapter } from "./anthropic.ts";
import { ClaudeAgentAdapter } from "./claude-agent.ts";
import { OpenAIAdapter } from "./openai.ts";
import type { ProviderAdapter } from "./types.ts";

export type AdapterChoice = { adapter: ProviderAdapter } | { problem: string };

/** Adapters hold only configuration (and an SDK client), so one per provider and settings object is reused. */
const adapters = new WeakMap<Settings, Map<Provider, AdapterChoice>>();

/** The adapter for a provider, or why it cannot run here (a missing key or runner), in words for the chat. */
export function createAdapter(provider: Provider, settings: Settings, env: Env): AdapterChoice {
  let perProvider = adapters.get(settings);
  if (!perProvider) {
    perProvider = new Map();
    adapters.set(settings, perProvider);
  }
  let choice = perProvider.get(provider);
  if (!choice) {
    choice = buildAdapter(provider, settings, env);
    perProvider.set(provider, choice);
  }
  return choice;
}

function buildAdapter(provider: Provider, settings: Settings, env: Env): AdapterChoice {
  const retries = { maxRetries: settings.providerMaxRetries, timeoutMs: settings.providerTimeoutMs };
  switch (provider) {
    case "openai":
      if (!settings.openaiApiKey) return { problem: "OPENAI_API_KEY is not set" };
      return {
        adapter: new OpenAIAdapter({
          apiKey: settings.openaiApiKey,
          ...optional("baseUrl", settings.openaiBaseUrl),
          ...retries,
        }),
      };
    case "anthropic":
      if (!settings.anthropicApiKey) return { problem: "ANTHROPIC_API_KEY is not set" };
      return {
        adapter: new AnthropicAdapter({
          apiKey: settings.anthropicApiKey,
          ...optional("baseUrl", settings.anthropicBaseUrl),
          ...retries,
        }),
      };
    case "claude-agent":
      if (!settings.agentRunnerUrl && !env.AGENT_CONTAINER) {
        return { problem: "no agent runner is configured (AGENT_CONTAINER binding or AGENT_RUNNER_URL)" };
      }
      return {
        adapter: new ClaudeAgentAdapter({
          env,
          runnerUrl: settings.agentRunnerUrl,
          runnerToken: settings.agentRunnerToken,
          timeoutMs: settings.agentTimeoutMs,
        }),
      };
  }
}

function optional<Key extends string>(key: Key, value: string | undefined): { [K in Key]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: string };
}
