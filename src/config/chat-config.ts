import * as z from "zod";
import { MCP_ALLOWLIST_ENTRY, type McpServerConfig, mcpServersSchema } from "./mcp-servers.ts";
import type { PaidCap, PaidKind } from "./paid-kinds.ts";
import {
  type AgentProvider,
  agentProviderSchema,
  DEFAULT_MODELS,
  type Fallback,
  fallbackSchema,
  isAgentProvider,
  MAX_FALLBACKS,
  type Provider,
  providerSchema,
} from "./providers.ts";
import { RICH_MODES, type RichMode } from "./rich-modes.ts";
import { builtInProvider, type Settings } from "./settings.ts";
import { isTimezone } from "./zones.ts";

const MAX_SYSTEM_PROMPT_LENGTH = 8000;

/** When a chat's answers are also spoken (a voice message after the text): never, to a voice note, or always. */
export const VOICE_REPLIES = ["off", "when-spoken-to", "always"] as const;
export type VoiceReplies = (typeof VOICE_REPLIES)[number];

const schemas = new Map<string, ReturnType<typeof buildSchema>>();
const capSchema = z.union([z.number().int().min(0).max(1e9), z.literal("unlimited")]).optional();

/** The schema against the tool names that exist, so an unknown tool name is refused, not stored. Built once. */
export function chatConfigSchema(toolNames: readonly string[]) {
  const key = toolNames.join(",");
  let schema = schemas.get(key);
  if (!schema) {
    schema = buildSchema(toolNames).superRefine(mcpAllowlistNamesServers);
    schemas.set(key, schema);
  }
  return schema;
}

function buildSchema(toolNames: readonly string[]) {
  return z.strictObject({
    provider: providerSchema.optional(),
    model: z.string().trim().min(1).max(200).optional(),
    systemPrompt: z.string().max(MAX_SYSTEM_PROMPT_LENGTH).optional(),
    tools: z
      .array(
        z.string().refine((name) => toolNames.includes(name) || MCP_ALLOWLIST_ENTRY.test(name), {
          message: `must be one of: ${toolNames.join(", ")}, or <mcp server>__<tool> or <mcp server>__*`,
        }),
      )
      .max(100)
      .optional(),
    enabled: z.boolean().optional(),
    /** The chat's IANA time zone: its clock, its day for the budget, its tasks' default zone. */
    timezone: z
      .string()
      .max(64)
      .refine(isTimezone, { message: "must be an IANA time zone such as Europe/Berlin" })
      .optional(),
    /** Daily limits, reset at midnight in the chat's time zone; "unlimited" overrides a default for all chats. */
    budget: z
      .strictObject({
        dailyTokens: z.union([z.number().int().min(0).max(1e12), z.literal("unlimited")]).optional(),
        dailyCostUsd: z.union([z.number().min(0).max(1e6), z.literal("unlimited")]).optional(),
      })
      .optional(),
    /** Caps on paid calls besides tokens, per message and per day; "unlimited" overrides a default. */
    limits: z
      .strictObject({
        imagesPerTurn: capSchema,
        imagesPerDay: capSchema,
        audioMinutesPerTurn: capSchema,
        audioMinutesPerDay: capSchema,
        searchesPerTurn: capSchema,
        searchesPerDay: capSchema,
        speechCharactersPerDay: capSchema,
      })
      .optional(),
    /** Who may use /agent (a shell in a container): the bot's admins (default), or everyone in the chat. */
    agentAccess: z.enum(["admins", "everyone"]).optional(),
    /** Which agent `/agent` runs when the chat's provider is not itself an agent. */
    agent: agentProviderSchema.optional(),
    /** Models tried in order when the chat's own is overloaded, rate-limited or unreachable; [] turns off a default. */
    fallbacks: z.array(fallbackSchema).max(MAX_FALLBACKS).optional(),
    /** Quote a voice note's transcript in the chat before the answer (default off: the model reads it either way). */
    quoteTranscripts: z.boolean().optional(),
    /** Spoken answers: off (default), to a voice or video note (when-spoken-to), or to every message (always). */
    voiceReplies: z.enum(VOICE_REPLIES).optional(),
    /** Remote MCP servers whose tools join this chat's (src/mcp/). */
    mcpServers: mcpServersSchema.optional(),
    /** Days archived history is kept ("forever" overrides a default; 0 keeps no archive). */
    historyRetentionDays: z.union([z.number().int().min(0).max(36_500), z.literal("forever")]).optional(),
    /** When answers go out as rich messages: `auto` (structure or length decides), `always` or `off`. */
    richMessages: z.enum(RICH_MODES).optional(),
    /** A rich answer that used tools ends with a collapsed list of them (default: in private chats, not in groups). */
    showSteps: z.boolean().optional(),
  });
}

/** An allowlist entry for an MCP tool must name one of the chat's MCP servers. */
function mcpAllowlistNamesServers(
  config: { tools?: string[] | undefined; mcpServers?: McpServerConfig[] | undefined },
  context: z.RefinementCtx,
): void {
  const servers = new Set((config.mcpServers ?? []).map((server) => server.name));
  for (const [index, name] of (config.tools ?? []).entries()) {
    const server = MCP_ALLOWLIST_ENTRY.exec(name)?.[1];
    if (server !== undefined && !servers.has(server)) {
      context.addIssue({
        code: "custom",
        path: ["tools", index],
        message: `no MCP server named ${server} in mcpServers`,
      });
    }
  }
}
export type ChatConfig = z.infer<ReturnType<typeof buildSchema>>;

export interface EffectiveConfig {
  provider: Provider;
  model: string;
  systemPrompt?: string;
  /** Absent: every tool. */
  tools?: string[];
  enabled: boolean;
  timezone: string;
  /** Undefined limits are unlimited. */
  budget: { dailyTokens?: number; dailyCostUsd?: number };
  /** Caps on each kind of paid call (images, searches, speech, audio seconds), per turn and per day. */
  paidCaps: Record<PaidKind, PaidCap>;
  agentAccess: "admins" | "everyone";
  /** The agent `/agent` runs: see `agentOf`. */
  agent: AgentProvider;
  /** The chat's fallback chain (its own, else DEFAULT_FALLBACKS), each with its model resolved. */
  fallbacks: { provider: Fallback["provider"]; model: string }[];
  quoteTranscripts: boolean;
  voiceReplies: VoiceReplies;
  mcpServers: McpServerConfig[];
  /** Days archived history is kept (undefined: forever; 0: none is kept). */
  historyRetentionDays: number | undefined;
  /** The chat's own `richMessages`, else RICH_MESSAGES. */
  richMessages: RichMode;
  /** The chat's own `showSteps`; undefined: the default for the kind of chat. */
  showSteps?: boolean;
  /** Where provider and model came from, for /status and the admin API. */
  source: { provider: "chat" | "DEFAULT_PROVIDER" | "built-in"; model: "chat" | "DEFAULT_MODEL" | "built-in" };
}

/**
 * Resolution, as in the seeds: the chat's config, then DEFAULT_PROVIDER / DEFAULT_MODEL, then the built-in provider
 * (the first with a key, else `workers-ai`: see `builtInProvider`) with the provider's own default model. DEFAULT_MODEL applies only to the default provider: a chat switched to another
 * provider without a model gets that provider's default model, not a model name another provider would refuse.
 */
export function resolveConfig(config: ChatConfig | undefined, settings: Settings): EffectiveConfig {
  const defaultProvider = settings.defaultProvider ?? builtInProvider(settings);
  const provider = config?.provider ?? defaultProvider;
  const providerSource = config?.provider ? "chat" : settings.defaultProvider ? "DEFAULT_PROVIDER" : "built-in";
  let model: string;
  let modelSource: EffectiveConfig["source"]["model"];
  if (config?.model) {
    model = config.model;
    modelSource = "chat";
  } else if (settings.defaultModel && provider === defaultProvider) {
    model = settings.defaultModel;
    modelSource = "DEFAULT_MODEL";
  } else {
    model = DEFAULT_MODELS[provider];
    modelSource = "built-in";
  }
  return {
    provider,
    model,
    ...(config?.systemPrompt ? { systemPrompt: config.systemPrompt } : {}),
    ...(config?.tools ? { tools: config.tools } : {}),
    enabled: config?.enabled ?? true,
    timezone: config?.timezone ?? settings.defaultTimezone,
    budget: {
      ...limit("dailyTokens", config?.budget?.dailyTokens, settings.dailyTokenBudget),
      ...limit("dailyCostUsd", config?.budget?.dailyCostUsd, settings.dailyCostBudgetUsd),
    },
    paidCaps: paidCapsOf(config?.limits, settings.paid.caps),
    agentAccess: config?.agentAccess ?? "admins",
    agent: agentOf(provider, config?.agent, settings),
    fallbacks: (config?.fallbacks ?? settings.defaultFallbacks).map((fallback) => ({
      provider: fallback.provider,
      model: fallback.model ?? DEFAULT_MODELS[fallback.provider],
    })),
    quoteTranscripts: config?.quoteTranscripts ?? false,
    voiceReplies: config?.voiceReplies ?? "off",
    mcpServers: config?.mcpServers ?? [],
    historyRetentionDays:
      config?.historyRetentionDays === "forever"
        ? undefined
        : (config?.historyRetentionDays ?? settings.historyRetentionDays),
    richMessages: config?.richMessages ?? settings.richMessages,
    ...(config?.showSteps === undefined ? {} : { showSteps: config.showSteps }),
    source: { provider: providerSource, model: modelSource },
  };
}

/**
 * The chat's agent: its provider when that is an agent, else its config's `agent`, else `claude-agent` when an
 * Anthropic key is set, else `codex-agent` when an OpenAI key is set, else `claude-agent` (a runner started by hand
 * holds its own keys).
 */
function agentOf(
  provider: Provider,
  configured: AgentProvider | undefined,
  settings: Pick<Settings, "anthropicApiKey" | "openaiApiKey">,
): AgentProvider {
  if (isAgentProvider(provider)) return provider;
  if (configured) return configured;
  if (settings.anthropicApiKey) return "claude-agent";
  if (settings.openaiApiKey) return "codex-agent";
  return "claude-agent";
}

/** A chat's own limit, else the default for all chats; "unlimited" (or neither) leaves it out. */
function limit<Key extends string>(
  key: Key,
  own: number | "unlimited" | undefined,
  fallback: number | undefined,
): { [K in Key]?: number } {
  const value = own === "unlimited" ? undefined : (own ?? fallback);
  const result: { [K in Key]?: number } = {};
  if (value !== undefined) result[key] = value;
  return result;
}

/** The chat's own caps over the defaults (audio is set in minutes and counted in seconds). */
function paidCapsOf(own: ChatConfig["limits"], defaults: Record<PaidKind, PaidCap>): Record<PaidKind, PaidCap> {
  const cap = (value: number | "unlimited" | undefined, fallback: number | undefined, scale = 1) =>
    value === "unlimited" ? undefined : value === undefined ? fallback : value * scale;
  const caps = (
    kind: PaidKind,
    perTurn: number | "unlimited" | undefined,
    perDay: number | "unlimited" | undefined,
    scale = 1,
  ): PaidCap => {
    const turn = cap(perTurn, defaults[kind].perTurn, scale);
    const day = cap(perDay, defaults[kind].perDay, scale);
    return { ...(turn === undefined ? {} : { perTurn: turn }), ...(day === undefined ? {} : { perDay: day }) };
  };
  return {
    image: caps("image", own?.imagesPerTurn, own?.imagesPerDay),
    search: caps("search", own?.searchesPerTurn, own?.searchesPerDay),
    speech: caps("speech", undefined, own?.speechCharactersPerDay),
    transcription: caps("transcription", own?.audioMinutesPerTurn, own?.audioMinutesPerDay, 60),
  };
}
