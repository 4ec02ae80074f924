import type { IdList } from "./id-list.ts";
import type { AgentEgress } from "./knobs/agent-knobs.ts";
import { withCatalogPrices } from "./model-catalog.ts";
import type { PaidCap, PaidKind } from "./paid-kinds.ts";
import type { Plan } from "./plan-limits.ts";
import type { Fallback, Provider } from "./providers.ts";
import type { RichMode } from "./rich-modes.ts";
import {
  type AnthropicWebSearch,
  anthropicWebSearchOf,
  type WebSearchSettings,
  webSearchOf,
} from "./search-settings.ts";
import { readValues, type SettingSource } from "./setting-values.ts";
import { type ModelChoice, type ModelPrice, type WorkersAiRoute, workersAiRouteOf } from "./settings-lists.ts";
import type { SettingName, SettingValues } from "./settings-schema.ts";
import { type SpeechSettings, speechSettingsOf } from "./speech-settings.ts";
import type { StoredSettingValues } from "./stored-settings.ts";

export interface Settings {
  botToken: string | undefined;
  webhookSecret: string | undefined;
  telegramApiBaseUrl: string;
  allowedChats: IdList;
  adminUserIds: IdList;
  adminChatIds: IdList;
  /** The admin API's bearer token; undefined when unset or weaker than 32 characters (the admin surface stays shut). */
  adminToken: string | undefined;
  /** ADMIN_TOKEN is set but shorter than 32 characters: /health and the console say so. */
  adminTokenWeak: boolean;
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
  agentEgress: AgentEgress;
  /** `web_fetch`: offered at all, and the private hosts (host:port) it may still reach, for local dev only. */
  webFetch: { enabled: boolean; privateHosts: ReadonlySet<string> };
  /** `web_search`: its backend (undefined: not offered) and how many results a search returns. */
  webSearch: WebSearchSettings;
  /** Anthropic chats: Anthropic's own server-side web search instead of `web_search`. */
  anthropicWebSearch: AnthropicWebSearch;
  /** Daily limits for chats without their own (undefined: unlimited). */
  dailyTokenBudget: number | undefined;
  dailyCostBudgetUsd: number | undefined;
  /** What `/model` offers admins as buttons (MODEL_CHOICES), in order. */
  modelChoices: readonly ModelChoice[];
  /** US dollars per million tokens, by model name, for cost budgets and reports. */
  modelPrices: ReadonlyMap<string, ModelPrice>;
  /** How many rows of live history a chat keeps (the model sees the last `historyLimit`); older ones are archived. */
  historyMaxStored: number;
  /** Days archived history is kept, for chats without their own (undefined: forever; 0: nothing is archived). */
  historyRetentionDays: number | undefined;
  /** The Workers AI embeddings model of search_history's hybrid ranking (with the HISTORY_VECTORS binding). */
  historyEmbeddingModel: string;
  /** The most characters of tool results one turn feeds back to the model, all calls together. */
  toolResultsMaxChars: number;
  /** Characters of one person's facts a turn is given; consolidation keeps a person's memory under it. */
  personMemoryMaxChars: number;
  /** How a streamed answer is shown: drafts in private chats, and edits (groups) at most this often. */
  stream: { draftIntervalMs: number; editIntervalMs: number; stopButtonAfterMs: number };
  /** Where a 👀 reaction acknowledges a message whose answer takes more than a moment. */
  ackReaction: "private" | "all" | "off";
  /** When answers go out as rich messages, for chats without their own `richMessages` (see RICH_MODES). */
  richMessages: RichMode;
  /** Chats' MCP servers: how long a tool list is cached, and the time one request to a server may take. */
  mcp: { listCacheMs: number; timeoutMs: number };
  /** How long a chat object may keep usage records before writing them to D1 in one batch. */
  usageFlushMs: number;
  /** How long a message Telegram could not take waits in the chat's outbox, retried, before it is given up. */
  outboxMaxMs: number;
  /** Local dev only: the Bot API stand-in `npm run dev` starts without a bot token; the console's playground talks to it. */
  playgroundUrl: string | undefined;
  /** Photos, voice notes and files: caps, and which models see images. */
  media: MediaSettings;
  /** Voice notes to text: an OpenAI-compatible endpoint, or off. */
  transcription: { kind: "off" } | { kind: "api"; model: string; baseUrl: string | undefined };
  /** `generate_image`'s model; undefined: the tool is not offered. */
  imageModel: string | undefined;
  /** What paid calls besides tokens cost, and the caps of chats without their own `limits`. */
  paid: { prices: Record<PaidKind, number>; caps: Record<PaidKind, PaidCap> };
  /** Skills: the most characters of one skill (description and instructions), and of one chat's (or the bot's). */
  skills: { maxChars: number; maxTotalChars: number };
  /**
   * Background helpers: how many may run at once per chat (0: none), the longest one may run, and the share of what
   * is left of the chat's daily budget and paid-call allowance each gets when it starts.
   */
  helpers: { maxRunning: number; timeoutMs: number; budgetShare: number };
  /** Spoken answers: which speech model, where, and how much of an answer is spoken. */
  speech: SpeechSettings;
  /** Who may summon the bot as a guest in a chat it is not in (Bot API 10.0 guest mode). */
  guestMode: "off" | "admins" | "known";
  /** The account's Workers plan (WORKERS_PLAN): on Free the bot keeps within Free's limits per invocation. */
  plan: Plan;
  /** Variables that are set but unusable, by name, with what is wrong. Never their values. */
  problems: string[];
  /** Where each knob's value came from (its default, a variable, the console). */
  sources: Readonly<Record<SettingName, SettingSource>>;
  /** The console's values these settings were read with (KV), as text. */
  stored: StoredSettingValues;
}

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

/** The variables and secrets of an environment, by name (an `Env`); only its strings are read. */
type Variables = object;

/** An admin token is the key to every chat's config and usage: too short to resist guessing, it opens nothing. */
const MIN_ADMIN_TOKEN_LENGTH = 32;

function adminTokenOf(token: string | undefined, problems: string[]): Pick<Settings, "adminToken" | "adminTokenWeak"> {
  if (token === undefined || token.length >= MIN_ADMIN_TOKEN_LENGTH)
    return { adminToken: token, adminTokenWeak: false };
  problems.push(
    `ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (e.g. openssl rand -hex 32): the admin API and the console stay closed until it is`,
  );
  return { adminToken: undefined, adminTokenWeak: true };
}

/**
 * The bot's settings from its variables and secrets and the settings kept by the console (`stored`, from KV): a
 * variable that is set wins, then the console's value, then the default in the schema (settings-schema.ts).
 */
export function readSettings(variables: Variables, stored: StoredSettingValues = {}): Settings {
  const { values, sources, problems } = readValues(variables, stored);
  const set = (name: SettingName) => sources[name] !== "default";

  // Both are called with OPENAI_API_KEY: named without it, they cannot work, which /health should say.
  const transcriptionOn = values.TRANSCRIPTION_MODEL?.toLowerCase() !== "off";
  if (set("TRANSCRIPTION_MODEL") && transcriptionOn && values.OPENAI_API_KEY === undefined) {
    problems.push("TRANSCRIPTION_MODEL needs OPENAI_API_KEY (or set it to off): voice notes are not transcribed");
  }
  if (values.IMAGE_MODEL !== undefined && values.OPENAI_API_KEY === undefined) {
    problems.push("IMAGE_MODEL needs OPENAI_API_KEY: generate_image is not offered");
  }
  const historyLimit = values.HISTORY_LIMIT;
  let historyMaxStored = values.HISTORY_MAX_STORED ?? historyLimit * 10;
  if (historyMaxStored < historyLimit) {
    problems.push(`HISTORY_MAX_STORED must be a whole number from ${historyLimit} to 1000000`);
    historyMaxStored = historyLimit * 10;
  }
  const workersAi = workersAiRouteOf(values.WORKERS_AI_BASE_URL, values.WORKERS_AI_API_TOKEN, problems);
  const speech = speechSettingsOf(values, problems);
  const webSearch = webSearchOf(values, problems);
  const runnerUrl = values.AGENT_RUNNER_URL;
  const callbackUrl = values.AGENT_CALLBACK_URL;

  return {
    botToken: values.TELEGRAM_BOT_TOKEN,
    webhookSecret: values.TELEGRAM_WEBHOOK_SECRET,
    telegramApiBaseUrl: values.TELEGRAM_API_BASE_URL ?? "https://api.telegram.org",
    allowedChats: values.ALLOWED_CHAT_IDS,
    adminUserIds: values.ADMIN_USER_IDS,
    adminChatIds: values.ADMIN_CHAT_IDS,
    ...adminTokenOf(values.ADMIN_TOKEN, problems),
    botName: values.BOT_NAME,
    openaiApiKey: values.OPENAI_API_KEY,
    openaiBaseUrl: values.OPENAI_BASE_URL,
    anthropicApiKey: values.ANTHROPIC_API_KEY,
    anthropicBaseUrl: values.ANTHROPIC_BASE_URL,
    workersAi,
    defaultProvider: values.DEFAULT_PROVIDER,
    defaultModel: values.DEFAULT_MODEL,
    defaultFallbacks: values.DEFAULT_FALLBACKS,
    historyLimit,
    historyWindowTokens: values.HISTORY_WINDOW_TOKENS,
    historyMaxStored,
    historyRetentionDays: values.HISTORY_RETENTION_DAYS,
    historyEmbeddingModel: values.HISTORY_EMBEDDING_MODEL,
    toolResultsMaxChars: values.TOOL_RESULTS_MAX_CHARS,
    personMemoryMaxChars: values.PERSON_MEMORY_MAX_CHARS,
    dailyTokenBudget: values.DAILY_TOKEN_BUDGET,
    dailyCostBudgetUsd: values.DAILY_COST_BUDGET_USD,
    modelPrices: withCatalogPrices(values.MODEL_PRICES),
    modelChoices: values.MODEL_CHOICES,
    providerMaxRetries: values.PROVIDER_MAX_RETRIES,
    providerTimeoutMs: values.PROVIDER_TIMEOUT_SECONDS * 1000,
    defaultTimezone: values.DEFAULT_TIMEZONE,
    agentRunner:
      runnerUrl === undefined
        ? { kind: "container" }
        : { kind: "url", url: runnerUrl, token: values.AGENT_RUNNER_TOKEN },
    toolCallback: callbackUrl === undefined ? { kind: "container" } : { kind: "public-route", baseUrl: callbackUrl },
    agentTimeoutMs: values.AGENT_TIMEOUT_SECONDS * 1000,
    agentMaxOutputTokens: values.AGENT_MAX_OUTPUT_TOKENS,
    agentEgress: values.AGENT_EGRESS_HOSTS,
    stream: {
      draftIntervalMs: values.STREAM_DRAFT_INTERVAL_MS,
      editIntervalMs: values.STREAM_EDIT_INTERVAL_MS,
      stopButtonAfterMs: values.STOP_BUTTON_AFTER_SECONDS * 1000,
    },
    ackReaction: values.ACK_REACTION,
    richMessages: values.RICH_MESSAGES,
    webFetch: { enabled: values.WEB_FETCH, privateHosts: values.WEB_FETCH_PRIVATE_HOSTS },
    webSearch,
    anthropicWebSearch: anthropicWebSearchOf(values),
    usageFlushMs: values.USAGE_FLUSH_SECONDS * 1000,
    outboxMaxMs: values.OUTBOX_MAX_HOURS * 3_600_000,
    media: mediaOf(values),
    transcription:
      transcriptionOn && values.TRANSCRIPTION_MODEL !== undefined
        ? { kind: "api", model: values.TRANSCRIPTION_MODEL, baseUrl: values.TRANSCRIPTION_BASE_URL }
        : { kind: "off" },
    imageModel: values.IMAGE_MODEL,
    paid: paidOf(values),
    skills: { maxChars: values.SKILL_MAX_CHARS, maxTotalChars: values.SKILLS_MAX_TOTAL_CHARS },
    helpers: {
      maxRunning: values.HELPERS_MAX_RUNNING,
      timeoutMs: values.HELPER_TIMEOUT_SECONDS * 1000,
      budgetShare: helperShare(values.HELPER_BUDGET_SHARE, problems),
    },
    speech,
    guestMode: values.GUEST_MODE,
    mcp: { listCacheMs: values.MCP_LIST_CACHE_SECONDS * 1000, timeoutMs: values.MCP_TIMEOUT_SECONDS * 1000 },
    playgroundUrl: values.PLAYGROUND_URL,
    plan: values.WORKERS_PLAN,
    problems,
    sources,
    stored,
  };
}

function mediaOf(values: SettingValues): Settings["media"] {
  return {
    maxFileBytes: values.MEDIA_MAX_FILE_MB * 1024 * 1024,
    maxImagesPerTurn: values.MEDIA_MAX_IMAGES_PER_TURN,
    imageMaxEdge: values.IMAGE_MAX_EDGE_PX,
    documentTextMaxChars: values.DOCUMENT_TEXT_MAX_CHARS,
    visionModels: values.VISION_MODELS,
  };
}

/** Paid calls' prices per unit, and their caps per turn and per day. */
function paidOf(values: SettingValues): Settings["paid"] {
  return {
    prices: {
      image: values.IMAGE_PRICE_USD,
      search: values.SEARCH_PRICE_USD,
      speech: values.SPEECH_PRICE_USD_PER_MILLION_CHARS / 1_000_000,
      transcription: values.TRANSCRIPTION_PRICE_USD_PER_MINUTE / 60,
    },
    caps: {
      image: { perTurn: values.IMAGES_PER_TURN, perDay: values.IMAGES_PER_DAY },
      search: { perTurn: values.SEARCHES_PER_TURN, perDay: values.SEARCHES_PER_DAY },
      speech: { perDay: values.SPEECH_CHARS_PER_DAY },
      // Audio is counted in seconds; its caps are set in minutes.
      transcription: { perTurn: values.AUDIO_MINUTES_PER_TURN * 60, perDay: values.AUDIO_MINUTES_PER_DAY * 60 },
    },
  };
}

/** A helper's share of what is left: more than nothing, at most all of it. */
function helperShare(share: number, problems: string[]): number {
  if (share > 0) return share;
  problems.push("HELPER_BUDGET_SHARE must be a number above 0 and at most 1");
  return 0.5;
}
