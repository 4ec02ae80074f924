import type { Env, EnvVariable } from "../env.ts";
import {
  DEFAULT_MODELS,
  type Fallback,
  isModelProvider,
  isProvider,
  MAX_FALLBACKS,
  MODEL_PROVIDERS,
  PROVIDERS,
  type Provider,
} from "./providers.ts";
import { isTimezone } from "./zones.ts";

/** A list of chat or user ids from a comma-separated variable; `*` means everyone. */
export type IdList = { kind: "everyone" } | { kind: "some"; ids: ReadonlySet<number> };

export interface Settings {
  botToken: string | undefined;
  webhookSecret: string | undefined;
  telegramApiBaseUrl: string;
  allowedChats: IdList;
  adminUserIds: IdList;
  adminChatIds: IdList;
  adminToken: string | undefined;
  botName: string;
  openaiApiKey: string | undefined;
  openaiBaseUrl: string | undefined;
  anthropicApiKey: string | undefined;
  anthropicBaseUrl: string | undefined;
  /** Workers AI through its OpenAI-compatible endpoint (both set), else through the `AI` binding. */
  workersAi: WorkersAiRoute;
  defaultProvider: Provider | undefined;
  defaultModel: string | undefined;
  /** The fallback chain of chats that do not set their own (DEFAULT_FALLBACKS). */
  defaultFallbacks: Fallback[];
  historyLimit: number;
  /** The history the model sees, in estimated tokens; older messages are folded into the chat's summary. */
  historyWindowTokens: number;
  providerMaxRetries: number;
  providerTimeoutMs: number;
  defaultTimezone: string;
  agentRunner: AgentRunner;
  toolCallback: ToolCallbackRoute;
  agentTimeoutMs: number;
  /** The most output tokens one model call of a container's agent may ask for (the model proxy caps it). */
  agentMaxOutputTokens: number;
  /**
   * What a container may reach besides the Worker's own handlers: nothing, these host names, or (`*`) the internet.
   */
  agentEgress: { kind: "none" } | { kind: "hosts"; hosts: readonly string[] } | { kind: "internet" };
  /** `web_fetch`: offered at all, and the private hosts (host:port) it may still reach, for local dev only. */
  webFetch: { enabled: boolean; privateHosts: ReadonlySet<string> };
  /** Daily limits for chats without their own (undefined: unlimited). */
  dailyTokenBudget: number | undefined;
  dailyCostBudgetUsd: number | undefined;
  /** What `/model` offers admins as buttons (MODEL_CHOICES), in order. */
  modelChoices: readonly ModelChoice[];
  /** US dollars per million tokens, by model name, for cost budgets and reports. */
  modelPrices: ReadonlyMap<string, ModelPrice>;
  /** How many history rows a chat keeps (the model sees the last `historyLimit`). */
  historyMaxStored: number;
  /** The most characters of tool results one turn feeds back to the model, all calls together. */
  toolResultsMaxChars: number;
  /** How a streamed answer is shown: drafts in private chats, and edits (groups) at most this often. */
  stream: { draftIntervalMs: number; editIntervalMs: number; stopButtonAfterMs: number };
  /** Where a 👀 reaction acknowledges a message whose answer takes more than a moment. */
  ackReaction: "private" | "all" | "off";
  /** Chats' MCP servers: how long a tool list is cached, and the time one request to a server may take. */
  mcp: { listCacheMs: number; timeoutMs: number };
  /** How long a chat object may keep usage records before writing them to D1 in one batch. */
  usageFlushMs: number;
  /** Local dev only: the Bot API stand-in `npm run dev` starts without a bot token; the console's playground talks to it. */
  playgroundUrl: string | undefined;
  /** Photos, voice notes and files: caps, and which models see images. */
  media: MediaSettings;
  /** Voice notes to text: an OpenAI-compatible endpoint, or off. */
  transcription: { kind: "off" } | { kind: "api"; model: string; baseUrl: string | undefined };
  /** `generate_image`'s model; undefined: the tool is not offered. */
  imageModel: string | undefined;
  /** Variables that are set but unusable, by name, with what is wrong. Never their values. */
  problems: string[];
}

/** How `workers-ai` is reached: the Worker's `AI` binding (no key), or an OpenAI-compatible URL with an API token. */
export type WorkersAiRoute = { kind: "binding" } | { kind: "endpoint"; baseUrl: string; apiToken: string };

/**
 * The provider of chats without their own when DEFAULT_PROVIDER is unset: the first with a key (OpenAI, then
 * Anthropic), else Workers AI, which needs none.
 */
export function builtInProvider(settings: Pick<Settings, "openaiApiKey" | "anthropicApiKey">): Provider {
  if (settings.openaiApiKey) return "openai";
  if (settings.anthropicApiKey) return "anthropic";
  return "workers-ai";
}

/** Where the agents run: the chat's container, or (dev and tests) a runner started by hand at a URL. */
export type AgentRunner = { kind: "container" } | { kind: "url"; url: string; token: string | undefined };

/**
 * How a runner calls the bot's tools back: from a container through its outbound handler (no public route), or,
 * for a runner started by hand, through this Worker's public `/agent/tools/:chat` route at `baseUrl`.
 */
export type ToolCallbackRoute = { kind: "container" } | { kind: "public-route"; baseUrl: string };

export interface MediaSettings {
  /** Files over this are not downloaded (never more than the Bot API's 20 MB). */
  maxFileBytes: number;
  /** The most recent images a model call gets; older ones are named, not shown. */
  maxImagesPerTurn: number;
  /** A photo is taken in the largest size Telegram offers within this edge (px). */
  imageMaxEdge: number;
  /** Characters of a text-like document a model gets. */
  documentTextMaxChars: number;
  /** Model name patterns (`*` matches anything) that see images and read PDFs. */
  visionModels: readonly string[];
}

/** The Bot API's download limit for bots. */
export const TELEGRAM_DOWNLOAD_LIMIT_BYTES = 20 * 1024 * 1024;
export const DEFAULT_VISION_MODELS = "gpt-4o*,gpt-4.1*,gpt-4.5*,gpt-5*,o1,o3,o4-mini*,claude-*,gemini-*";

export const DEFAULT_HISTORY_LIMIT = 40;

export interface ModelChoice {
  provider: Provider;
  model: string;
}

export interface ModelPrice {
  input: number;
  output: number;
}

const cache = new WeakMap<Env, Settings>();

/** Reads and checks the environment once per `env` object (one per isolate in production). */
export function settingsOf(env: Env): Settings {
  let settings = cache.get(env);
  if (!settings) {
    settings = readSettings(env);
    cache.set(env, settings);
  }
  return settings;
}

export function readSettings(env: Env): Settings {
  const problems: string[] = [];
  const text = (value: string | undefined): string | undefined => {
    const trimmed = value?.trim();
    return trimmed ? trimmed : undefined;
  };
  const integer = (name: EnvVariable, fallback: number, min: number, max: number): number => {
    const raw = text(env[name]);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return value;
  };
  const idList = (name: EnvVariable, { everyoneAllowed }: { everyoneAllowed: boolean }): IdList => {
    const raw = text(env[name]);
    if (raw === undefined) return { kind: "some", ids: new Set() };
    if (raw === "*") {
      if (everyoneAllowed) return { kind: "everyone" };
      // Everyone an admin would make every member of every allowed chat an admin: refused, not guessed.
      problems.push(`${name} cannot be *: list the ids`);
      return { kind: "some", ids: new Set() };
    }
    const ids = new Set<number>();
    for (const part of raw.split(",")) {
      const item = part.trim();
      if (item === "") continue;
      const id = Number(item);
      if (/^-?\d+$/.test(item) && Number.isSafeInteger(id)) ids.add(id);
      else problems.push(`${name} has an entry that is not a chat or user id`);
    }
    return { kind: "some", ids };
  };
  const url = (name: EnvVariable): string | undefined => {
    const raw = text(env[name]);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (parsed.protocol === "http:" || parsed.protocol === "https:") return raw.replace(/\/+$/, "");
    } catch {
      // reported below
    }
    problems.push(`${name} must be an http(s) URL`);
    return undefined;
  };

  const providerName = text(env.DEFAULT_PROVIDER);
  let defaultProvider: Provider | undefined;
  if (providerName !== undefined) {
    if (isProvider(providerName)) defaultProvider = providerName;
    else problems.push(`DEFAULT_PROVIDER must be one of ${PROVIDERS.join(", ")}`);
  }

  const defaultTimezone = text(env.DEFAULT_TIMEZONE) ?? "UTC";
  if (!isTimezone(defaultTimezone)) problems.push("DEFAULT_TIMEZONE must be an IANA time zone such as Europe/Berlin");

  const onOff = (name: EnvVariable, fallback: boolean): boolean => {
    const raw = text(env[name])?.toLowerCase();
    if (raw === undefined) return fallback;
    if (raw === "on" || raw === "true" || raw === "1") return true;
    if (raw === "off" || raw === "false" || raw === "0") return false;
    problems.push(`${name} must be on or off`);
    return fallback;
  };
  const agentEgress = (): Settings["agentEgress"] => {
    const raw = text(env.AGENT_EGRESS_HOSTS);
    if (raw === undefined) return { kind: "none" };
    if (raw === "*") return { kind: "internet" };
    const hosts = raw
      .split(",")
      .map((host) => host.trim().toLowerCase())
      .filter((host) => host !== "");
    // Host names only (a leading "*." for subdomains): no schemes, paths, ports or a lone "*" among others.
    if (!hosts.every((host) => /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host))) {
      problems.push("AGENT_EGRESS_HOSTS must be empty, * or a comma-separated list of host names");
      return { kind: "none" };
    }
    return { kind: "hosts", hosts };
  };
  const optionalNumber = (name: EnvVariable, max: number): number | undefined => {
    const raw = text(env[name]);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > max) {
      problems.push(`${name} must be a number from 0 to ${max}, or empty for no limit`);
      return undefined;
    }
    return value;
  };
  const choice = <Choice extends string>(name: EnvVariable, choices: readonly Choice[], fallback: Choice): Choice => {
    const raw = text(env[name])?.toLowerCase();
    if (raw === undefined) return fallback;
    const found = choices.find((option) => option === raw);
    if (found === undefined) problems.push(`${name} must be one of ${choices.join(", ")}`);
    return found ?? fallback;
  };
  const runnerUrl = url("AGENT_RUNNER_URL");
  const historyLimit = integer("HISTORY_LIMIT", DEFAULT_HISTORY_LIMIT, 2, 1000);
  const transcriptionModel = text(env.TRANSCRIPTION_MODEL) ?? "gpt-4o-mini-transcribe";
  const transcriptionBaseUrl = url("TRANSCRIPTION_BASE_URL");
  const transcriptionOn = transcriptionModel.toLowerCase() !== "off";
  const imageModel = text(env.IMAGE_MODEL);
  // Both are called with OPENAI_API_KEY: named without it, they cannot work, which /health should say.
  if (text(env.TRANSCRIPTION_MODEL) !== undefined && transcriptionOn && !text(env.OPENAI_API_KEY)) {
    problems.push("TRANSCRIPTION_MODEL needs OPENAI_API_KEY (or set it to off): voice notes are not transcribed");
  }
  if (imageModel !== undefined && !text(env.OPENAI_API_KEY)) {
    problems.push("IMAGE_MODEL needs OPENAI_API_KEY: generate_image is not offered");
  }
  const visionModels = (text(env.VISION_MODELS) ?? DEFAULT_VISION_MODELS)
    .split(",")
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== "");
  if (visionModels.some((pattern) => !/^[A-Za-z0-9._:/@*-]{1,200}$/.test(pattern))) {
    problems.push("VISION_MODELS must be comma-separated model names, where * matches anything");
  }
  const callbackUrl = url("AGENT_CALLBACK_URL");

  return {
    botToken: text(env.TELEGRAM_BOT_TOKEN),
    webhookSecret: text(env.TELEGRAM_WEBHOOK_SECRET),
    telegramApiBaseUrl: url("TELEGRAM_API_BASE_URL") ?? "https://api.telegram.org",
    allowedChats: idList("ALLOWED_CHAT_IDS", { everyoneAllowed: true }),
    adminUserIds: idList("ADMIN_USER_IDS", { everyoneAllowed: false }),
    adminChatIds: idList("ADMIN_CHAT_IDS", { everyoneAllowed: false }),
    adminToken: text(env.ADMIN_TOKEN),
    botName: text(env.BOT_NAME) ?? "Assistant",
    openaiApiKey: text(env.OPENAI_API_KEY),
    openaiBaseUrl: url("OPENAI_BASE_URL"),
    anthropicApiKey: text(env.ANTHROPIC_API_KEY),
    anthropicBaseUrl: url("ANTHROPIC_BASE_URL"),
    workersAi: workersAiRouteOf(url("WORKERS_AI_BASE_URL"), text(env.WORKERS_AI_API_TOKEN), problems),
    defaultProvider,
    defaultModel: text(env.DEFAULT_MODEL),
    defaultFallbacks: fallbacksOf(text(env.DEFAULT_FALLBACKS), problems),
    historyLimit,
    historyWindowTokens: integer("HISTORY_WINDOW_TOKENS", 16_000, 500, 2_000_000),
    historyMaxStored: integer("HISTORY_MAX_STORED", historyLimit * 10, historyLimit, 1_000_000),
    toolResultsMaxChars: integer("TOOL_RESULTS_MAX_CHARS", 200_000, 1_000, 10_000_000),
    dailyTokenBudget: optionalNumber("DAILY_TOKEN_BUDGET", 1e12),
    dailyCostBudgetUsd: optionalNumber("DAILY_COST_BUDGET_USD", 1e6),
    modelPrices: modelPricesOf(text(env.MODEL_PRICES), problems),
    modelChoices: modelChoicesOf(text(env.MODEL_CHOICES), problems),
    providerMaxRetries: integer("PROVIDER_MAX_RETRIES", 3, 0, 10),
    providerTimeoutMs: integer("PROVIDER_TIMEOUT_SECONDS", 120, 1, 600) * 1000,
    defaultTimezone: isTimezone(defaultTimezone) ? defaultTimezone : "UTC",
    agentRunner:
      runnerUrl === undefined
        ? { kind: "container" }
        : { kind: "url", url: runnerUrl, token: text(env.AGENT_RUNNER_TOKEN) },
    toolCallback: callbackUrl === undefined ? { kind: "container" } : { kind: "public-route", baseUrl: callbackUrl },
    agentTimeoutMs: integer("AGENT_TIMEOUT_SECONDS", 300, 1, 3600) * 1000,
    agentMaxOutputTokens: integer("AGENT_MAX_OUTPUT_TOKENS", 16000, 1024, 128_000),
    agentEgress: agentEgress(),
    stream: {
      draftIntervalMs: integer("STREAM_DRAFT_INTERVAL_MS", 400, 300, 10_000),
      // Telegram allows about 20 messages a minute in a group, edits included: one every 3 s stays well under.
      editIntervalMs: integer("STREAM_EDIT_INTERVAL_MS", 3000, 1000, 60_000),
      stopButtonAfterMs: integer("STOP_BUTTON_AFTER_SECONDS", 3, 0, 600) * 1000,
    },
    ackReaction: choice("ACK_REACTION", ["private", "all", "off"], "private"),
    webFetch: {
      enabled: onOff("WEB_FETCH", true),
      privateHosts: new Set(
        (text(env.WEB_FETCH_PRIVATE_HOSTS) ?? "")
          .split(",")
          .map((host) => host.trim().toLowerCase())
          .filter((host) => host !== ""),
      ),
    },
    usageFlushMs: integer("USAGE_FLUSH_SECONDS", 30, 0, 3600) * 1000,
    media: {
      maxFileBytes: integer("MEDIA_MAX_FILE_MB", 20, 1, 20) * 1024 * 1024,
      maxImagesPerTurn: integer("MEDIA_MAX_IMAGES_PER_TURN", 4, 0, 100),
      imageMaxEdge: integer("IMAGE_MAX_EDGE_PX", 1568, 90, 10_000),
      documentTextMaxChars: integer("DOCUMENT_TEXT_MAX_CHARS", 100_000, 1_000, 2_000_000),
      visionModels,
    },
    transcription: transcriptionOn
      ? { kind: "api", model: transcriptionModel, baseUrl: transcriptionBaseUrl }
      : { kind: "off" },
    imageModel,
    mcp: {
      listCacheMs: integer("MCP_LIST_CACHE_SECONDS", 300, 0, 86_400) * 1000,
      timeoutMs: integer("MCP_TIMEOUT_SECONDS", 20, 1, 300) * 1000,
    },
    playgroundUrl: url("PLAYGROUND_URL"),
    problems,
  };
}

export function includes(list: IdList, id: number): boolean {
  return list.kind === "everyone" || list.ids.has(id);
}

/** DEFAULT_FALLBACKS: `provider[:model]`, comma-separated, tried in order (a model name may itself contain ":"). */
function fallbacksOf(raw: string | undefined, problems: string[]): Fallback[] {
  if (raw === undefined) return [];
  const fallbacks: Fallback[] = [];
  for (const part of raw.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const colon = item.indexOf(":");
    const provider = colon < 0 ? item : item.slice(0, colon);
    const model = colon < 0 ? "" : item.slice(colon + 1).trim();
    if (!isModelProvider(provider) || (colon >= 0 && (model === "" || model.length > 200))) {
      problems.push(`DEFAULT_FALLBACKS must list provider[:model] entries (providers: ${MODEL_PROVIDERS.join(", ")})`);
      return [];
    }
    fallbacks.push(model === "" ? { provider } : { provider, model });
  }
  if (fallbacks.length > MAX_FALLBACKS) {
    problems.push(`DEFAULT_FALLBACKS may list at most ${MAX_FALLBACKS} entries`);
    return [];
  }
  return fallbacks;
}

/** MODEL_PRICES: `{"<model>": {"input": <USD per million tokens>, "output": <USD per million tokens>}}`. */
function modelPricesOf(raw: string | undefined, problems: string[]): ReadonlyMap<string, ModelPrice> {
  const prices = new Map<string, ModelPrice>();
  if (raw === undefined) return prices;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    problems.push("MODEL_PRICES must be JSON");
    return prices;
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    problems.push('MODEL_PRICES must map model names to {"input": n, "output": n}');
    return prices;
  }
  for (const [model, price] of Object.entries(json)) {
    const input: unknown = price?.input;
    const output: unknown = price?.output;
    if (typeof input === "number" && typeof output === "number" && input >= 0 && output >= 0) {
      prices.set(model, { input, output });
    } else {
      problems.push(`MODEL_PRICES has an entry (${model.slice(0, 60)}) without numeric input and output prices`);
    }
  }
  return prices;
}

function workersAiRouteOf(
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

/**
 * MODEL_CHOICES: `provider:model` entries, comma-separated (`openai:gpt-4o-mini, anthropic:claude-sonnet-4-5`).
 * Unset: each of openai and anthropic with its default model.
 */
function modelChoicesOf(raw: string | undefined, problems: string[]): readonly ModelChoice[] {
  const fallback: ModelChoice[] = [
    { provider: "openai", model: DEFAULT_MODELS.openai },
    { provider: "anthropic", model: DEFAULT_MODELS.anthropic },
  ];
  if (raw === undefined) return fallback;
  const choices: ModelChoice[] = [];
  for (const entry of raw.split(",")) {
    const item = entry.trim();
    if (item === "") continue;
    const separator = item.indexOf(":");
    const provider = item.slice(0, separator);
    const model = item.slice(separator + 1).trim();
    if (separator < 0 || !isProvider(provider) || !/^[\w.:/@-]+$/.test(model) || item.length > MAX_CHOICE_LENGTH) {
      problems.push(
        `MODEL_CHOICES has an entry (${item.slice(0, 60)}) that is not provider:model (a known provider, at most ${MAX_CHOICE_LENGTH} characters)`,
      );
      continue;
    }
    if (!choices.some((choice) => choice.provider === provider && choice.model === model)) {
      choices.push({ provider, model });
    }
  }
  if (choices.length > MAX_MODEL_CHOICES) problems.push(`MODEL_CHOICES lists more than ${MAX_MODEL_CHOICES} models`);
  return choices.length === 0 ? fallback : choices.slice(0, MAX_MODEL_CHOICES);
}
