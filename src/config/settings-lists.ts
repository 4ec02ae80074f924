/**
 * The settings that are lists or maps in one value. Each reads the set text and says what is wrong (never the value);
 * an unusable one falls back to the knob's default.
 */
import { type Reading, readingOf } from "./knob.ts";
import {
  type Fallback,
  isModelProvider,
  isProvider,
  MAX_FALLBACKS,
  MODEL_PROVIDERS,
  type Provider,
} from "./providers.ts";

/** How `workers-ai` is reached: the Worker's `AI` binding (no key), or an OpenAI-compatible URL with an API token. */
export type WorkersAiRoute = { kind: "binding" } | { kind: "endpoint"; baseUrl: string; apiToken: string };

export interface ModelChoice {
  provider: Provider;
  model: string;
}

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** DEFAULT_FALLBACKS: `provider[:model]`, comma-separated, tried in order (a model name may itself contain ":"). */
export function fallbacksOf(text: string): Reading<Fallback[]> {
  const fallbacks: Fallback[] = [];
  for (const part of text.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const colon = item.indexOf(":");
    const provider = colon < 0 ? item : item.slice(0, colon);
    const model = colon < 0 ? "" : item.slice(colon + 1).trim();
    if (!isModelProvider(provider) || (colon >= 0 && (model === "" || model.length > 200))) {
      return { ok: false, problem: `must list provider[:model] entries (providers: ${MODEL_PROVIDERS.join(", ")})` };
    }
    fallbacks.push(model === "" ? { provider } : { provider, model });
  }
  if (fallbacks.length > MAX_FALLBACKS) return { ok: false, problem: `may list at most ${MAX_FALLBACKS} entries` };
  return readingOf(fallbacks);
}

/** MODEL_PRICES: `{"<model>": {"input": <USD per million tokens>, "output": <USD per million tokens>}}`. */
export function modelPricesOf(text: string): Reading<ReadonlyMap<string, ModelPrice>> {
  const prices = new Map<string, ModelPrice>();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: "must be JSON" };
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return { ok: false, problem: 'must map model names to {"input": n, "output": n}' };
  }
  const problems: string[] = [];
  for (const [model, price] of Object.entries(json)) {
    const input: unknown = price?.input;
    const output: unknown = price?.output;
    if (typeof input === "number" && typeof output === "number" && input >= 0 && output >= 0) {
      prices.set(model, { input, output });
    } else {
      problems.push(`has an entry (${model.slice(0, 60)}) without numeric input and output prices`);
    }
  }
  return readingOf(prices, problems);
}

export function workersAiRouteOf(
  baseUrl: string | undefined,
  apiToken: string | undefined,
  problems: string[],
): WorkersAiRoute {
  if (baseUrl && apiToken) return { kind: "endpoint", baseUrl, apiToken };
  if (baseUrl || apiToken) problems.push("WORKERS_AI_BASE_URL and WORKERS_AI_API_TOKEN must be set together");
  return { kind: "binding" };
}

/** The most buttons `/model` shows, and the longest `provider:model` (a button's data is at most 64 bytes). */
const MAX_MODEL_CHOICES = 12;
const MAX_CHOICE_LENGTH = 58;

/** MODEL_CHOICES: `provider:model` entries, comma-separated (`openai:gpt-5-mini, anthropic:claude-sonnet-5`). */
export function modelChoicesOf(text: string): Reading<readonly ModelChoice[]> {
  const problems: string[] = [];
  const choices: ModelChoice[] = [];
  for (const entry of text.split(",")) {
    const item = entry.trim();
    if (item === "") continue;
    const separator = item.indexOf(":");
    const provider = item.slice(0, separator);
    const model = item.slice(separator + 1).trim();
    if (separator < 0 || !isProvider(provider) || !/^[\w.:/@-]+$/.test(model) || item.length > MAX_CHOICE_LENGTH) {
      problems.push(
        `has an entry (${item.slice(0, 60)}) that is not provider:model (a known provider, at most ${MAX_CHOICE_LENGTH} characters)`,
      );
      continue;
    }
    if (!choices.some((choice) => choice.provider === provider && choice.model === model)) {
      choices.push({ provider, model });
    }
  }
  if (choices.length > MAX_MODEL_CHOICES) problems.push(`lists more than ${MAX_MODEL_CHOICES} models`);
  return readingOf(choices.slice(0, MAX_MODEL_CHOICES), problems);
}
