import type { AdapterSources } from "../adapters/index.ts";
import type { ServedModelSources } from "../adapters/served-models.ts";
import type { Settings } from "../config/settings.ts";
import { type Env, workersAiBinding } from "../env.ts";
import { type McpOpener, mcpOpener, type SecretReader } from "../mcp/chat-mcp.ts";
import { type SpeakerChoice, speakerOf } from "../media/speech.ts";
import { SemanticIndex } from "../tools/semantic-index.ts";
import { agentContainersOf } from "./agent-containers.ts";
import { historyVectors } from "./optional-bindings.ts";

/**
 * The Worker's bindings, turned at the entry points (the objects, the routes) into the narrow ports the rest of the
 * code takes: nothing below reads `env`. Each function gives one capability.
 */

/**
 * The chat's semantic index, when a Vectorize index is bound as HISTORY_VECTORS and the AI binding is there to
 * embed with; undefined otherwise (search is then full-text only).
 */
export function semanticIndexOf(env: Env, settings: Settings, namespace: string): SemanticIndex | undefined {
  const vectors = historyVectors(env);
  const ai = workersAiBinding(env);
  if (!vectors || !ai) return undefined;
  return new SemanticIndex({ ai, vectors, model: settings.historyEmbeddingModel, namespace });
}

/** What building a provider's adapter needs of the Worker: the AI binding and the agent containers, if bound. */
export function adapterSourcesOf(env: Env, settings: Settings): AdapterSources {
  return {
    settings,
    ai: workersAiBinding(env),
    agentContainers: env.AGENT_CONTAINER ? agentContainersOf(env) : undefined,
  };
}

/** An MCP server's header secrets, read by name from the Worker's secrets (the config schema allows MCP_* only). */
export function secretsOf(env: Env): SecretReader {
  return (name) => Reflect.get(env, name);
}

/** Opens a chat's MCP servers for one turn, with their secrets. */
export function mcpOpenerOf(env: Env, settings: Settings): McpOpener {
  return mcpOpener(secretsOf(env), settings);
}

/** The chat's speaker for spoken answers: OpenAI's speech with its key, or Workers AI's through its binding. */
export function speakerSourceOf(env: Env, settings: Settings): () => SpeakerChoice {
  return () =>
    speakerOf(settings.speech, {
      openaiApiKey: settings.openaiApiKey,
      ai: workersAiBinding(env),
      timeoutMs: settings.providerTimeoutMs,
    });
}

/** What asking the providers for their served models needs: the keys, KV for the cache, the AI binding if bound. */
export function servedModelSourcesOf(env: Env, settings: Settings): ServedModelSources {
  return { settings, kv: env.CONFIG, ai: workersAiBinding(env) };
}
