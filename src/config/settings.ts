import type { Env } from "../env.ts";
import { EnvReader, type IdList } from "./env-reader.ts";
import type { PaidCap, PaidKind } from "./paid-kinds.ts";
import { PLANS, type Plan } from "./plan-limits.ts";
import { type Fallback, isProvider, PROVIDERS, type Provider } from "./providers.ts";
import {
  type AnthropicWebSearch,
  anthropicWebSearchOf,
  type WebSearchSettings,
  webSearchOf,
} from "./search-settings.ts";
import {
  fallbacksOf,
  type ModelChoice,
  type ModelPrice,
  modelChoicesOf,
  modelPricesOf,
  type WorkersAiRoute,
  workersAiRouteOf,
} from "./settings-lists.ts";
import { type SpeechSettings, speechSettingsOf } from "./speech-settings.ts";
import { isTimezone } from "./zones.ts";

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
  agentEgress: { kind: "none" } | { kind: "hosts"; hosts: readonly string[] } | { kind: "internet" };
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
  guestMode: GuestMode;
  /** Variables that are set but unusable, by name, with what is wrong. Never their values. */
  problems: string[];

  // --- Workers plan (issue 37) ---
  /** The deployment's Workers plan (WORKERS_PLAN; empty: paid): what one invocation may spend (see plan-limits.ts). */
  plan: Plan;
}

const GUEST_MODES = ["off", "admins", "known"] as const;
/** off: nobody; admins: the bot's admins; known: admins and people whose private chat is allowed (listed or paired). */
type GuestMode = (typeof GUEST_MODES)[number];

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
/**
 * When an answer is a rich message (Bot API 10.1) rather than Telegram HTML: `auto` when it has structure HTML cannot
 * show (tables, headings, task lists, math, footnotes, details) or is longer than one message; `always`; `off`.
 */
export const RICH_MODES = ["auto", "always", "off"] as const;
export type RichMode = (typeof RICH_MODES)[number];

export const TELEGRAM_DOWNLOAD_LIMIT_BYTES = 20 * 1024 * 1024;
const DEFAULT_VISION_MODELS = "gpt-4o*,gpt-4.1*,gpt-4.5*,gpt-5*,o1,o3,o4-mini*,claude-*,gemini-*";

export const DEFAULT_HISTORY_LIMIT = 40;

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

export function readSettings(env: Env): Settings {
  const read = new EnvReader(env);
  const { problems } = read;

  const providerName = read.text(env.DEFAULT_PROVIDER);
  let defaultProvider: Provider | undefined;
  if (providerName !== undefined) {
    if (isProvider(providerName)) defaultProvider = providerName;
    else problems.push(`DEFAULT_PROVIDER must be one of ${PROVIDERS.join(", ")}`);
  }

  const defaultTimezone = read.text(env.DEFAULT_TIMEZONE) ?? "UTC";
  if (!isTimezone(defaultTimezone)) problems.push("DEFAULT_TIMEZONE must be an IANA time zone such as Europe/Berlin");

  const agentEgress = (): Settings["agentEgress"] => {
    const raw = read.text(env.AGENT_EGRESS_HOSTS);
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
  const runnerUrl = read.url("AGENT_RUNNER_URL");
  const historyLimit = read.integer("HISTORY_LIMIT", DEFAULT_HISTORY_LIMIT, 2, 1000);
  const transcriptionModel = read.text(env.TRANSCRIPTION_MODEL) ?? "gpt-4o-mini-transcribe";
  const transcriptionBaseUrl = read.url("TRANSCRIPTION_BASE_URL");
  const transcriptionOn = transcriptionModel.toLowerCase() !== "off";
  const imageModel = read.text(env.IMAGE_MODEL);
  // Both are called with OPENAI_API_KEY: named without it, they cannot work, which /health should say.
  if (read.text(env.TRANSCRIPTION_MODEL) !== undefined && transcriptionOn && !read.text(env.OPENAI_API_KEY)) {
    problems.push("TRANSCRIPTION_MODEL needs OPENAI_API_KEY (or set it to off): voice notes are not transcribed");
  }
  if (imageModel !== undefined && !read.text(env.OPENAI_API_KEY)) {
    problems.push("IMAGE_MODEL needs OPENAI_API_KEY: generate_image is not offered");
  }
  const visionModels = (read.text(env.VISION_MODELS) ?? DEFAULT_VISION_MODELS)
    .split(",")
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== "");
  if (visionModels.some((pattern) => !/^[A-Za-z0-9._:/@*-]{1,200}$/.test(pattern))) {
    problems.push("VISION_MODELS must be comma-separated model names, where * matches anything");
  }
  const callbackUrl = read.url("AGENT_CALLBACK_URL");
  // Read in the order their problems are reported.
  const telegramApiBaseUrl = read.url("TELEGRAM_API_BASE_URL") ?? "https://api.telegram.org";
  const openaiBaseUrl = read.url("OPENAI_BASE_URL");
  const speech = speechSettingsOf(env, read, openaiBaseUrl);

  return {
    botToken: read.text(env.TELEGRAM_BOT_TOKEN),
    webhookSecret: read.text(env.TELEGRAM_WEBHOOK_SECRET),
    telegramApiBaseUrl,
    allowedChats: read.idList("ALLOWED_CHAT_IDS", { everyoneAllowed: true }),
    adminUserIds: read.idList("ADMIN_USER_IDS", { everyoneAllowed: false }),
    adminChatIds: read.idList("ADMIN_CHAT_IDS", { everyoneAllowed: false }),
    ...adminTokenOf(read.text(env.ADMIN_TOKEN), read.problems),
    botName: read.text(env.BOT_NAME) ?? "Assistant",
    openaiApiKey: read.text(env.OPENAI_API_KEY),
    openaiBaseUrl,
    anthropicApiKey: read.text(env.ANTHROPIC_API_KEY),
    anthropicBaseUrl: read.url("ANTHROPIC_BASE_URL"),
    workersAi: workersAiRouteOf(read.url("WORKERS_AI_BASE_URL"), read.text(env.WORKERS_AI_API_TOKEN), problems),
    defaultProvider,
    defaultModel: read.text(env.DEFAULT_MODEL),
    defaultFallbacks: fallbacksOf(read.text(env.DEFAULT_FALLBACKS), problems),
    historyLimit,
    historyWindowTokens: read.integer("HISTORY_WINDOW_TOKENS", 16_000, 500, 2_000_000),
    historyMaxStored: read.integer("HISTORY_MAX_STORED", historyLimit * 10, historyLimit, 1_000_000),
    historyRetentionDays: read.optionalInteger("HISTORY_RETENTION_DAYS", 0, 36_500),
    historyEmbeddingModel: read.text(env.HISTORY_EMBEDDING_MODEL) ?? "@cf/baai/bge-m3",
    toolResultsMaxChars: read.integer("TOOL_RESULTS_MAX_CHARS", 200_000, 1_000, 10_000_000),
    dailyTokenBudget: read.optionalNumber("DAILY_TOKEN_BUDGET", 1e12),
    dailyCostBudgetUsd: read.optionalNumber("DAILY_COST_BUDGET_USD", 1e6),
    modelPrices: modelPricesOf(read.text(env.MODEL_PRICES), problems),
    modelChoices: modelChoicesOf(read.text(env.MODEL_CHOICES), problems),
    providerMaxRetries: read.integer("PROVIDER_MAX_RETRIES", 3, 0, 10),
    providerTimeoutMs: read.integer("PROVIDER_TIMEOUT_SECONDS", 120, 1, 600) * 1000,
    defaultTimezone: isTimezone(defaultTimezone) ? defaultTimezone : "UTC",
    agentRunner:
      runnerUrl === undefined
        ? { kind: "container" }
        : { kind: "url", url: runnerUrl, token: read.text(env.AGENT_RUNNER_TOKEN) },
    toolCallback: callbackUrl === undefined ? { kind: "container" } : { kind: "public-route", baseUrl: callbackUrl },
    agentTimeoutMs: read.integer("AGENT_TIMEOUT_SECONDS", 300, 1, 3600) * 1000,
    agentMaxOutputTokens: read.integer("AGENT_MAX_OUTPUT_TOKENS", 16000, 1024, 128_000),
    agentEgress: agentEgress(),
    stream: {
      draftIntervalMs: read.integer("STREAM_DRAFT_INTERVAL_MS", 400, 300, 10_000),
      // Telegram allows about 20 messages a minute in a group, edits included: one every 3 s stays well under.
      editIntervalMs: read.integer("STREAM_EDIT_INTERVAL_MS", 3000, 1000, 60_000),
      stopButtonAfterMs: read.integer("STOP_BUTTON_AFTER_SECONDS", 3, 0, 600) * 1000,
    },
    ackReaction: read.choice("ACK_REACTION", ["private", "all", "off"], "private"),
    richMessages: read.choice("RICH_MESSAGES", RICH_MODES, "auto"),
    webFetch: {
      enabled: read.onOff("WEB_FETCH", true),
      privateHosts: new Set(
        (read.text(env.WEB_FETCH_PRIVATE_HOSTS) ?? "")
          .split(",")
          .map((host) => host.trim().toLowerCase())
          .filter((host) => host !== ""),
      ),
    },
    webSearch: webSearchOf(read, env),
    anthropicWebSearch: anthropicWebSearchOf(read, env),
    usageFlushMs: read.integer("USAGE_FLUSH_SECONDS", 30, 0, 3600) * 1000,
    outboxMaxMs: read.integer("OUTBOX_MAX_HOURS", 24, 1, 168) * 3_600_000,
    media: {
      maxFileBytes: read.integer("MEDIA_MAX_FILE_MB", 20, 1, 20) * 1024 * 1024,
      maxImagesPerTurn: read.integer("MEDIA_MAX_IMAGES_PER_TURN", 4, 0, 100),
      imageMaxEdge: read.integer("IMAGE_MAX_EDGE_PX", 1568, 90, 10_000),
      documentTextMaxChars: read.integer("DOCUMENT_TEXT_MAX_CHARS", 100_000, 1_000, 2_000_000),
      visionModels,
    },
    transcription: transcriptionOn
      ? { kind: "api", model: transcriptionModel, baseUrl: transcriptionBaseUrl }
      : { kind: "off" },
    imageModel,
    paid: {
      prices: {
        image: read.number("IMAGE_PRICE_USD", 0.04, 100),
        search: read.number("SEARCH_PRICE_USD", 0.005, 100),
        speech: read.number("SPEECH_PRICE_USD_PER_MILLION_CHARS", 15, 10_000) / 1_000_000,
        transcription: read.number("TRANSCRIPTION_PRICE_USD_PER_MINUTE", 0.003, 100) / 60,
      },
      caps: {
        image: {
          perTurn: read.integer("IMAGES_PER_TURN", 4, 0, 100),
          perDay: read.integer("IMAGES_PER_DAY", 20, 0, 10_000),
        },
        search: {
          perTurn: read.integer("SEARCHES_PER_TURN", 5, 0, 100),
          perDay: read.integer("SEARCHES_PER_DAY", 100, 0, 100_000),
        },
        speech: { perDay: read.integer("SPEECH_CHARS_PER_DAY", 100_000, 0, 100_000_000) },
        // Audio is counted in seconds; its caps are set in minutes.
        transcription: {
          perTurn: read.integer("AUDIO_MINUTES_PER_TURN", 10, 0, 1_440) * 60,
          perDay: read.integer("AUDIO_MINUTES_PER_DAY", 60, 0, 100_000) * 60,
        },
      },
    },
    skills: {
      maxChars: read.integer("SKILL_MAX_CHARS", 8_000, 100, 100_000),
      maxTotalChars: read.integer("SKILLS_MAX_TOTAL_CHARS", 32_000, 1_000, 1_000_000),
    },
    helpers: {
      maxRunning: read.integer("HELPERS_MAX_RUNNING", 2, 0, 10),
      // A helper runs on its object's alarm, which the platform ends at 15 minutes: 13 at most leaves room to report.
      timeoutMs: read.integer("HELPER_TIMEOUT_SECONDS", 600, 10, 780) * 1000,
      budgetShare: helperShare(read.number("HELPER_BUDGET_SHARE", 0.5, 1), problems),
    },
    speech,
    guestMode: read.choice("GUEST_MODE", GUEST_MODES, "known"),
    mcp: {
      listCacheMs: read.integer("MCP_LIST_CACHE_SECONDS", 300, 0, 86_400) * 1000,
      timeoutMs: read.integer("MCP_TIMEOUT_SECONDS", 20, 1, 300) * 1000,
    },
    playgroundUrl: read.url("PLAYGROUND_URL"),
    problems,

    // --- Workers plan (issue 37) ---
    plan: read.choice("WORKERS_PLAN", PLANS, "paid"),
  };
}

/** A helper's share of what is left: more than nothing, at most all of it. */
function helperShare(share: number, problems: string[]): number {
  if (share > 0) return share;
  problems.push("HELPER_BUDGET_SHARE must be a number above 0 and at most 1");
  return 0.5;
}

export function includes(list: IdList, id: number): boolean {
  return list.kind === "everyone" || list.ids.has(id);
}
