import * as z from "zod";
import type { ModelProvider } from "../config/providers.ts";
import type { Settings } from "../config/settings.ts";
import { errorText } from "../lib/errors.ts";

/** How long a provider's list is kept in KV before it is asked again (KV's own expiry drops it). */
const CACHE_SECONDS = 6 * 60 * 60;
const KEY_PREFIX = "served-models:";
const TIMEOUT_MS = 5000;
/** The most models kept of one provider's list (the menu shows fewer). */
const KEPT = 40;

/** Names that are not chat models with tools: embeddings, speech, images, moderation, realtime, legacy completions. */
const NOT_CHAT =
  /(embedding|tts|transcribe|whisper|dall-e|image|audio|realtime|moderation|search|davinci|babbage|instruct$|-pro$)/;

const openaiList = z.object({ data: z.array(z.object({ id: z.string().max(200), created: z.number().optional() })) });
const anthropicList = z.object({ data: z.array(z.object({ id: z.string().max(200) })) });
const cachedList = z.object({ models: z.array(z.string().max(200)).max(KEPT) });
/** Workers AI's model search (the binding's `models()`): a model's name and its properties. */
const workersAiList = z.array(
  z.object({
    name: z.string().max(200),
    properties: z.array(z.object({ property_id: z.string(), value: z.unknown() })).optional(),
  }),
);

/** What asking for a provider's models needs: the keys and addresses, KV for the cache, the AI binding if bound. */
export interface ServedModelSources {
  settings: Settings;
  kv: KVNamespace;
  ai: Pick<Ai, "models"> | undefined;
}

/**
 * The chat models with tools a provider serves now, from its models endpoint (OpenAI `GET /v1/models`, Anthropic
 * `GET /v1/models`, Workers AI's model search through the binding), kept in KV for six hours. Undefined when the
 * provider has no key here or cannot be asked; a failure is logged, never thrown (the menu then shows what it has).
 */
export async function servedModels(
  provider: ModelProvider,
  sources: ServedModelSources,
): Promise<string[] | undefined> {
  const { kv } = sources;
  const key = KEY_PREFIX + provider;
  const cached = cachedList.safeParse(await kv.get(key, "json").catch(() => null));
  if (cached.success) return cached.data.models;
  try {
    const models = await fetchServed(provider, sources);
    if (models === undefined) return undefined;
    const kept = models.slice(0, KEPT);
    await kv.put(key, JSON.stringify({ models: kept }), { expirationTtl: CACHE_SECONDS }).catch(() => undefined);
    return kept;
  } catch (error) {
    console.warn(`${provider}: its models list could not be read`, errorText(error));
    return undefined;
  }
}

async function fetchServed(
  provider: ModelProvider,
  { settings, ai }: ServedModelSources,
): Promise<string[] | undefined> {
  switch (provider) {
    case "openai": {
      if (!settings.openaiApiKey) return undefined;
      const base = settings.openaiBaseUrl ?? "https://api.openai.com/v1";
      const body = await getJson(`${base.replace(/\/$/, "")}/models`, {
        authorization: `Bearer ${settings.openaiApiKey}`,
      });
      const list = openaiList.parse(body).data;
      // OpenAI's own list holds every kind of model; an OpenAI-compatible server (vLLM, Ollama, the local stand-in)
      // names its chat models as it likes, so only the names that are plainly not chat models are left out there.
      const official = new URL(base).hostname === "api.openai.com";
      return list
        .filter((model) => (!official || /^(gpt-|o\d|chatgpt-)/.test(model.id)) && !NOT_CHAT.test(model.id))
        .sort((a, b) => (b.created ?? 0) - (a.created ?? 0))
        .map((model) => model.id);
    }
    case "anthropic": {
      if (!settings.anthropicApiKey) return undefined;
      const base = settings.anthropicBaseUrl ?? "https://api.anthropic.com";
      const body = await getJson(`${base.replace(/\/$/, "")}/v1/models?limit=100`, {
        "x-api-key": settings.anthropicApiKey,
        "anthropic-version": "2023-06-01",
      });
      // Every Claude model the Messages API serves calls tools; the list comes newest first.
      return anthropicList
        .parse(body)
        .data.map((model) => model.id)
        .filter((id) => id.startsWith("claude-"));
    }
    case "workers-ai": {
      if (!ai) return undefined;
      const found = workersAiList.parse(await ai.models({ task: "Text Generation" }));
      return found
        .filter((model) =>
          (model.properties ?? []).some(
            (property) => property.property_id === "function_calling" && String(property.value) === "true",
          ),
        )
        .map((model) => model.name);
    }
  }
}

async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!response.ok) throw new Error(`${new URL(url).host} answered ${response.status}`);
  return response.json();
}
