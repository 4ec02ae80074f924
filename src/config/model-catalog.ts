/** US dollars per million tokens (the shape of MODEL_PRICES' entries). */
interface CatalogPrice {
  input: number;
  output: number;
}

/**
 * The built-in models, current as of this release (November 2026), in one place: each provider's default, the cheap
 * model background work uses (memory consolidation), and their list prices in US dollars per million tokens (input,
 * output). MODEL_PRICES overrides a price; DEFAULT_MODEL and a chat's config override a model; `/model` offers what
 * each provider actually serves (src/adapters/served-models.ts), so this list only has to be right on release day.
 *
 * Sources, read on 28 November 2026 (through the project's documentation search):
 * - Anthropic: the models overview, platform.claude.com/docs/{es,it}/models/overview ("Claude Sonnet 5: $2 / input
 *   MTok, $10 / output MTok"; "Claude Haiku 4.5: $1 / $5"; Sonnet 5 "the best combination of speed and intelligence").
 *   The API ids `claude-sonnet-5` and `claude-haiku-4-5` (alias) as providers list them (docs.venice.ai/models/
 *   claude-sonnet-5 names the id `claude-sonnet-5`). Check with GET /v1/models.
 * - OpenAI: developers.openai.com/api/docs/pricing as quoted on 5-6 November 2026 (GPT-5 mini: $0.25 input, $2.00
 *   output per 1M tokens; the same in github/docs' Copilot models-and-pricing table).
 * - Workers AI: developers.cloudflare.com/workers-ai/platform/pricing (cloudflare-docs, pricing.mdx):
 *   `@cf/meta/llama-3.3-70b-instruct-fp8-fast` $0.293 per M input tokens, $2.253 per M output tokens; it was not among
 *   the models retired on 30 May 2026 and calls functions. `@cf/openai/gpt-oss-120b` ($0.35 / $0.75,
 *   developers.cloudflare.com/workers-ai/models/gpt-oss-120b) is priced here for chats that choose it.
 */
export const MODEL_CATALOG = {
  openai: { default: "gpt-5-mini", cheap: "gpt-5-mini" },
  anthropic: { default: "claude-sonnet-5", cheap: "claude-haiku-4-5" },
  "workers-ai": {
    default: "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
    cheap: "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
  },
} as const;

/** List prices of the catalog's models (USD per million tokens), used where MODEL_PRICES names no price. */
export const CATALOG_PRICES: ReadonlyMap<string, CatalogPrice> = new Map([
  ["gpt-5-mini", { input: 0.25, output: 2 }],
  ["claude-sonnet-5", { input: 2, output: 10 }],
  ["claude-haiku-4-5", { input: 1, output: 5 }],
  ["@cf/meta/llama-3.3-70b-instruct-fp8-fast", { input: 0.293, output: 2.253 }],
  ["@cf/openai/gpt-oss-120b", { input: 0.35, output: 0.75 }],
]);

/** The owner's prices over the catalog's: a model MODEL_PRICES names keeps the owner's price. */
export function withCatalogPrices(owned: ReadonlyMap<string, CatalogPrice>): ReadonlyMap<string, CatalogPrice> {
  return new Map([...CATALOG_PRICES, ...owned]);
}
