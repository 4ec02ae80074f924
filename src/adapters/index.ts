import type { Provider } from "../config/providers.ts";
import type { Settings } from "../config/settings.ts";
import { assertNever } from "../lib/errors.ts";
import type { AgentContainers } from "./agent-runs.ts";
import { AnthropicAdapter } from "./anthropic/anthropic-adapter.ts";
import { ContainerAgentAdapter } from "./container-agent.ts";
import { OpenAIAdapter } from "./openai/openai-adapter.ts";
import type { Adapter } from "./types.ts";
import type { WorkersAiRunner } from "./workers-ai/run-binding.ts";
import { WORKERS_AI_MAX_TOKENS, WorkersAiAdapter } from "./workers-ai/workers-ai-adapter.ts";

/** The adapter for a provider, or why it cannot run here (a missing key or runner), in words for the chat. */
export type AdapterChoice = { kind: "ready"; adapter: Adapter } | { kind: "unavailable"; problem: string };

/** Adapters hold only configuration (and an SDK client), so one per provider and settings object is reused. */
const adapters = new WeakMap<Settings, Map<Provider, AdapterChoice>>();

/**
 * What building an adapter needs: the settings (keys, URLs), the Workers AI binding and the chats' agent containers
 * (undefined where they are not bound).
 */
export interface AdapterSources {
  settings: Settings;
  ai: WorkersAiRunner | undefined;
  agentContainers: AgentContainers | undefined;
}

export function createAdapter(provider: Provider, sources: AdapterSources): AdapterChoice {
  const { settings } = sources;
  let perProvider = adapters.get(settings);
  if (!perProvider) {
    perProvider = new Map();
    adapters.set(settings, perProvider);
  }
  let choice = perProvider.get(provider);
  if (!choice) {
    choice = buildAdapter(provider, sources);
    perProvider.set(provider, choice);
  }
  return choice;
}

/** A missing key, and where it is set. */
function keyMissing(variable: string): string {
  return `${variable} is not set (in .dev.vars locally, with \`npx wrangler secret put ${variable}\` deployed)`;
}

function buildAdapter(provider: Provider, { settings, ai, agentContainers }: AdapterSources): AdapterChoice {
  const retries = { maxRetries: settings.providerMaxRetries, timeoutMs: settings.providerTimeoutMs };
  switch (provider) {
    case "openai":
      if (!settings.openaiApiKey) return { kind: "unavailable", problem: keyMissing("OPENAI_API_KEY") };
      return {
        kind: "ready",
        adapter: new OpenAIAdapter({
          apiKey: settings.openaiApiKey,
          ...(settings.openaiBaseUrl === undefined ? {} : { baseUrl: settings.openaiBaseUrl }),
          ...retries,
        }),
      };
    case "anthropic":
      if (!settings.anthropicApiKey) return { kind: "unavailable", problem: keyMissing("ANTHROPIC_API_KEY") };
      return {
        kind: "ready",
        adapter: new AnthropicAdapter({
          apiKey: settings.anthropicApiKey,
          ...(settings.anthropicBaseUrl === undefined ? {} : { baseUrl: settings.anthropicBaseUrl }),
          ...retries,
        }),
      };
    case "claude-agent":
    case "codex-agent":
      if (settings.agentRunner.kind === "container" && settings.plan === "free") {
        return {
          kind: "unavailable",
          problem:
            "agent sessions run in Cloudflare Containers, which need Workers Paid, and this bot is deployed on Workers Free (WORKERS_PLAN=free)",
        };
      }
      if (settings.agentRunner.kind === "container" && !agentContainers) {
        return {
          kind: "unavailable",
          problem:
            "no agent runner is configured (the AGENT_CONTAINER binding deployed; AGENT_RUNNER_URL for a runner started by hand)",
        };
      }
      return {
        kind: "ready",
        adapter: new ContainerAgentAdapter({
          agent: provider,
          runner: settings.agentRunner,
          containers: agentContainers ?? (() => undefined),
          timeoutMs: settings.agentTimeoutMs,
        }),
      };
    case "workers-ai": {
      const common = { label: "Workers AI", maxTokens: WORKERS_AI_MAX_TOKENS, ...retries };
      if (settings.workersAi.kind === "endpoint") {
        const { baseUrl, apiToken } = settings.workersAi;
        return { kind: "ready", adapter: new OpenAIAdapter({ apiKey: apiToken, baseUrl, ...common }) };
      }
      if (!ai) {
        return {
          kind: "unavailable",
          problem:
            "the Workers AI binding does not run here (local dev has none; deployed it is AI in wrangler.toml), and " +
            "WORKERS_AI_BASE_URL with WORKERS_AI_API_TOKEN are not set",
        };
      }
      return {
        kind: "ready",
        adapter: new WorkersAiAdapter({ runner: ai, ...retries }),
      };
    }
    default:
      return assertNever(provider);
  }
}
