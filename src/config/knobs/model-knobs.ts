import { custom, integer, readingOf, secret, text, url } from "../knob.ts";
import { DEFAULT_MODELS, isProvider, PROVIDERS, type Provider } from "../providers.ts";
import { fallbacksOf, type ModelPrice, modelChoicesOf, modelPricesOf } from "../settings-lists.ts";

const group = "Models";

export const MODEL_KNOBS = {
  OPENAI_API_KEY: secret({
    group,
    description: "key for the `openai` provider, and for `codex-agent` containers (added by the Worker on the way out)",
  }),
  ANTHROPIC_API_KEY: secret({
    group,
    description: "key for `anthropic`, and for `claude-agent` containers (added by the Worker on the way out)",
  }),
  WORKERS_AI_API_TOKEN: secret({
    group,
    description: "a Cloudflare API token with Workers AI access, for `WORKERS_AI_BASE_URL`; set both or neither",
  }),
  OPENAI_BASE_URL: url({
    kind: "variable",
    group,
    description:
      "any OpenAI-compatible endpoint: AI Gateway, OpenRouter, Groq, a local server (empty: OpenAI's). `OPENAI_API_KEY` is sent there, so it is never a setting",
  }),
  ANTHROPIC_BASE_URL: url({
    kind: "variable",
    group,
    description: "Messages API root (empty: Anthropic's); `ANTHROPIC_API_KEY` is sent there",
  }),
  WORKERS_AI_BASE_URL: url({
    kind: "variable",
    group,
    description:
      "Workers AI's OpenAI-compatible endpoint (`https://api.cloudflare.com/client/v4/accounts/<account id>/ai/v1`, or an AI Gateway URL); with `WORKERS_AI_API_TOKEN`, `workers-ai` goes there (streamed token by token) instead of through the `AI` binding. Empty: the binding",
  }),
  DEFAULT_PROVIDER: custom<Provider | undefined>(
    {
      group,
      description:
        "provider of chats without their own; empty: the first with a key (`openai`, then `anthropic`), else `workers-ai`, which needs none",
    },
    {
      rule: `one of ${PROVIDERS.join(", ")}`,
      fallback: undefined,
      read: (value) =>
        isProvider(value)
          ? readingOf<Provider | undefined>(value)
          : { ok: false, problem: `must be one of ${PROVIDERS.join(", ")}` },
    },
  ),
  DEFAULT_MODEL: text(
    {
      group,
      description: `model of chats on the default provider; empty: the provider's default (${Object.values(
        DEFAULT_MODELS,
      )
        .map((model) => `\`${model}\``)
        .join(", ")})`,
    },
    { maxLength: 200 },
  ),
  DEFAULT_FALLBACKS: custom(
    {
      group,
      description:
        "the fallback chain of chats without their own `fallbacks`: `provider[:model]`, comma-separated, tried in order when the model is overloaded, rate-limited, unreachable or too slow (e.g. `anthropic:claude-haiku-4-5,openai`); empty: none",
    },
    { rule: "provider[:model] entries, comma-separated", fallback: [], read: fallbacksOf },
  ),
  MODEL_CHOICES: custom(
    {
      group,
      description:
        "what `/model` and the console offer admins: `provider:model`, comma-separated (at most 12, each at most 58 characters), the owner's list over the providers'; empty: what each provider with a key serves (its models list, cached for 6 hours, filtered to chat models that call tools)",
    },
    { rule: "provider:model entries, comma-separated", fallback: [], read: modelChoicesOf },
  ),
  MODEL_PRICES: custom<ReadonlyMap<string, ModelPrice>>(
    {
      group,
      description:
        'JSON, US dollars per million tokens by model: `{"gpt-5-mini": {"input": 0.25, "output": 2}}`; for cost budgets and the usage report. The built-in models\' list prices (src/config/model-catalog.ts) apply to models it does not name',
    },
    { rule: 'JSON such as {"model": {"input": 0.15, "output": 0.6}}', fallback: new Map(), read: modelPricesOf },
  ),
  PROVIDER_MAX_RETRIES: integer(
    { group, description: "retries of 408/409/429/5xx/timeouts per model call" },
    { min: 0, max: 10, fallback: 3 },
  ),
  PROVIDER_TIMEOUT_SECONDS: integer(
    { group, description: "timeout per model call" },
    { min: 1, max: 600, fallback: 120 },
  ),
} as const;
