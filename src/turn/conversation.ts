import type { RunAllowance } from "../adapters/agent-runs.ts";
import { fitHistory } from "../adapters/fit-history.ts";
import { type MediaLibrary, withFilesAsText } from "../adapters/media-parts.ts";
import { functionTools } from "../adapters/request-tools.ts";
import { runToolLoop } from "../adapters/tool-loop.ts";
import type { Adapter } from "../adapters/types.ts";
import { addSpend, exhaustedLimit, latestSpend } from "../budget/budget.ts";
import type { PaidCalls } from "../budget/paid-calls.ts";
import { bytesForTokens, estimateTokens, summarySection, tokensOfBytes } from "../compaction/summary.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import type { Provider } from "../config/providers.ts";
import type { ToolCallbackRoute } from "../config/settings.ts";
import type { ModelPrice } from "../config/settings-lists.ts";
import { errorText } from "../lib/errors.ts";
import type { ChatMcp } from "../mcp/chat-mcp.ts";
import { planMedia } from "../media/load.ts";
import { mediaShelfOf } from "../media/services.ts";
import { type AgentEvent, BUDGET_RAN_OUT } from "../protocol/events.ts";
import { jsonBytesOfAll, utf8Bytes } from "../protocol/json-size.ts";
import type { HistoryMessage } from "../protocol/messages.ts";
import { agentToolsPath, type ModelTool, WORKER_CALLBACK_HOST } from "../protocol/run-payload.ts";
import { mintRunToken } from "../protocol/run-token.ts";
import { NO_SKILLS, type TurnSkills } from "../skills/skill.ts";
import { skillsSection } from "../skills/skill-prompt.ts";
import type { DailySpend, HistorySummary } from "../store/chat-meta.ts";
import { TurnTrust } from "../tools/context.ts";
import { noteAddressesPeopleWrote } from "../tools/outward-policy.ts";
import { USE_SKILL } from "../tools/use-skill.ts";
import type { ActiveRun } from "./active-run.ts";
import type { ChatContext } from "./chat-context.ts";
import { helperSpawner } from "./helpers.ts";
import { markOtherMembers } from "./other-members.ts";
import { meteredServerSearches, serverSearchOf, withServerSearch } from "./server-search.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import type { Tally } from "./tally.ts";
import { toolContext } from "./tool-context.ts";
import type { AdmittedTurn } from "./turn-request.ts";

export interface ConversationInput {
  request: AdmittedTurn;
  config: EffectiveConfig;
  adapter: Adapter;
  provider: Provider;
  model: string;
  run: ActiveRun;
  mcp: ChatMcp;
  /** The day's spend before the turn, and the turn's own tally and paid calls: a long tool loop stops at the budget. */
  spend: DailySpend;
  tally: Tally;
  paid: PaidCalls;
  /** This model call's signal, when it is not the run's own: a message joining the turn aborts it (see Burst). */
  signal?: AbortSignal;
  /** Notices about files the model cannot see that the chat was already given (a turn that starts over repeats none). */
  told?: Set<string>;
}

/** What a started conversation gives the turn. */
export interface Conversation {
  events: AsyncGenerator<AgentEvent>;
  trust: TurnTrust;
  /**
   * The first model call's input tokens, estimated: a call aborted before its usage arrived is counted by this. Worked
   * out only then (measuring the prompt every turn for it was about 2 % of a plain turn's CPU).
   */
  estimatedInputTokens: () => number;
}

/**
 * What a turn has read before it calls anything, by provenance: a scheduled task's prompt (written earlier, maybe by a
 * steered model), an agent's own tools (it reads the web and files by itself), the chat's MCP servers' tool
 * descriptions, and any message of the window or the summary that holds content from outside the chat.
 */
function startingTrust(input: {
  request: AdmittedTurn;
  adapter: Adapter;
  mcp: ChatMcp;
  summary: HistorySummary | undefined;
  window: readonly HistoryMessage[];
}): TurnTrust {
  const { request, adapter, mcp, summary, window } = input;
  if (request.kind === "task") return new TurnTrust("a scheduled task's prompt");
  if (adapter.kind === "agent") return new TurnTrust("the agent's own tools");
  if (mcp.tools.length > 0 || mcp.note !== undefined) return new TurnTrust("the MCP servers' tool descriptions");
  if (summary?.outside) return new TurnTrust(`the summary of earlier messages, which holds ${summary.outside}`);
  const marked = window.find((message) => message.outside !== undefined)?.outside;
  return new TurnTrust(marked === undefined ? undefined : `earlier messages, which hold ${marked}`);
}

/**
 * What the model is given and how it is asked: the chat's tools (its MCP servers' included, narrowed by its
 * allowlist) wired to the running turn, the history window with the summary of what it no longer shows, the files
 * it may see, and the system prompt. Returns the adapter's events: `runToolLoop` over a model adapter, or an agent
 * adapter's own loop.
 */
export async function startConversation(ctx: ChatContext, input: ConversationInput): Promise<Conversation> {
  const { request, config, adapter, run } = input;
  const signal = input.signal ?? run.signal;
  const { settings, stores } = ctx;
  const registry = ctx.registry.extendedWith(input.mcp.tools);
  const serverSearch = serverSearchOf(settings, config, adapter.kind);
  // Anthropic's server-side search, where it is used, takes the place of `web_search`.
  const allowed = registry
    .allowed(config.tools, settings)
    .filter((tool) => serverSearch === undefined || tool.name !== "web_search");
  // Skills read on demand: with use_skill for a model, as native skills for an agent (its runner installs them).
  const skills = await skillsOf(ctx);
  const readsSkills = adapter.kind === "model" && skills.listed.length > 0 && allowed.some((t) => t.name === USE_SKILL);
  const tools = allowed.filter((tool) => tool.name !== USE_SKILL || readsSkills);
  const skillText = skillsSection(
    adapter.kind === "agent" || readsSkills ? skills : { ...skills, listed: [] },
    adapter.kind === "agent" ? "native" : "use_skill",
  );
  const summary = stores.meta.get("summary");
  const window = [
    ...fitHistory(stores.history.window(settings.historyLimit, summary?.throughId ?? 0), {
      // The skills given whole and listed take their part of the window.
      fixedBytes: utf8Bytes(skillText),
      maxBytes: bytesForTokens(settings.historyWindowTokens),
    }),
    ...request.users,
  ];
  const trust = startingTrust({ request, adapter, mcp: input.mcp, summary, window });
  noteAddressesPeopleWrote(trust, window);
  markOtherMembers(trust, window, { senders: request.senders, isAdmin: (id) => ctx.access.isAdmin(id) });
  const context = toolContext(ctx, {
    senders: request.senders,
    trust,
    timezone: config.timezone,
    paid: input.paid,
    helpers: helperSpawner(ctx, { senders: request.senders, trust, config, tally: input.tally, paid: input.paid }),
  });
  run.useTools(
    cappedTools(settings.toolResultsMaxChars, (name, argumentsText) =>
      registry.execute(name, argumentsText, context, config.tools),
    ),
  );

  // The rolling summary (compaction) stands in for what the window no longer shows.
  const systemPrompt =
    withNote(
      buildSystemPrompt({
        botName: settings.botName,
        ...(config.systemPrompt ? { chatPrompt: config.systemPrompt } : {}),
        ...(skillText ? { skills: skillText } : {}),
        chat: {
          type: ctx.chat.type,
          ...(ctx.chat.title ? { title: ctx.chat.title } : {}),
          isForumTopic: ctx.target.threadId !== undefined,
        },
        toolNames: [...tools.map((tool) => tool.name), ...(serverSearch ? ["web_search"] : [])],
        now: new Date(ctx.now()),
        timezone: config.timezone,
      }),
      input.mcp.note,
    ) + summarySection(summary);
  const modelTools = tools.map((tool) => registry.modelTool(tool));

  switch (adapter.kind) {
    case "model": {
      const media = await mediaFor(ctx, {
        window,
        newMessages: request.users.length,
        model: input.model,
        told: input.told ?? new Set(),
      });
      const events = runToolLoop({
        adapter,
        request: {
          model: input.model,
          system: systemPrompt,
          messages: window,
          tools: functionTools(modelTools),
          ...(media ? { media } : {}),
          signal,
        },
        executeTool: (name, argumentsText) => run.execute(name, argumentsText),
        // Someone is watching a chat's turn; a task's turn only delivers its end.
        stream: request.kind !== "task",
        // A long tool loop stops at the daily budget rather than running past it (the stored spend, which holds
        // what helpers started meanwhile have been given, plus this turn's own).
        stopBeforeCall: () =>
          exhaustedLimit(
            addSpend(
              latestSpend(input.spend, stores.meta.get("spend")),
              input.tally.usage,
              input.tally.costUsd + input.paid.costUsd,
            ),
            config.budget,
          ) === undefined
            ? undefined
            : BUDGET_RAN_OUT,
        ...(serverSearch ? { prepareCall: withServerSearch(serverSearch, input.paid) } : {}),
      });
      return {
        events: serverSearch
          ? meteredServerSearches(events, { search: serverSearch, paid: input.paid, trust })
          : events,
        trust,
        estimatedInputTokens: () => estimatedInputTokens(systemPrompt, window, modelTools),
      };
    }
    case "agent": {
      const sessionId = stores.meta.get(sessionKeyOf(input.provider));
      const token = await mintRunToken(settings.botToken ?? "", {
        chatKey: ctx.chatKey,
        runId: run.id,
        // A little past the turn's own deadline: the run is stopped by then, and the token useless after.
        expiresAt: ctx.turnDeadline + 60_000,
      });
      const events = adapter.run({
        chatKey: ctx.chatKey,
        model: input.model,
        systemPrompt,
        history: withFilesAsText(window, "files are not passed to the agent"),
        tools: modelTools,
        ...(sessionId ? { sessionId } : {}),
        toolCallback: { url: toolCallbackUrl(settings.toolCallback, ctx.chatKey), token },
        skills: skills.listed.map(({ name, description, body }) => ({ name, description, body })),
        signal,
        allowance: allowanceOf(config, input.spend, settings.modelPrices.get(input.model)),
      });
      return {
        events,
        trust,
        estimatedInputTokens: () => estimatedInputTokens(systemPrompt, window, modelTools),
      };
    }
  }
}

/** The chat's skills; a turn goes on without them when they cannot be read (D1 down), rather than failing. */
async function skillsOf(ctx: ChatContext): Promise<TurnSkills> {
  try {
    return await ctx.skills.forChat(ctx.chat.id);
  } catch (error) {
    console.warn(`chat ${ctx.chat.id}: skills could not be read; the turn goes on without them`, errorText(error));
    return NO_SKILLS;
  }
}

/** Which files the model gets (the most recent images, text files as text), decided and loaded once per turn. */
async function mediaFor(
  ctx: ChatContext,
  input: { window: HistoryMessage[]; newMessages: number; model: string; told: Set<string> },
): Promise<MediaLibrary | undefined> {
  const windowBytes = jsonBytesOfAll(input.window);
  const plan = await planMedia({
    shelf: mediaShelfOf(ctx.env, ctx.settings, ctx.telegram.api),
    history: input.window,
    newFrom: input.window.length - input.newMessages,
    model: input.model,
    media: ctx.settings.media,
    // Files count in the window: their text gets what the window's messages leave (about a character a byte).
    textRoom: bytesForTokens(ctx.settings.historyWindowTokens) - windowBytes,
  });
  const notices = plan.notices.filter((notice) => !input.told.has(notice));
  for (const notice of notices) input.told.add(notice);
  if (notices.length > 0) await ctx.outbox.notify(ctx.target, notices.join("\n"));
  return plan.library;
}

/** A call's input tokens by the window's estimate (files not counted): the system prompt, the messages, the tools. */
function estimatedInputTokens(
  system: string,
  messages: readonly HistoryMessage[],
  tools: readonly ModelTool[],
): number {
  const fixed = utf8Bytes(system) + jsonBytesOfAll(tools);
  return tokensOfBytes(fixed, 1) + messages.reduce((sum, message) => sum + estimateTokens(message), 0);
}

/** Results are capped per tool; the whole turn's are capped too, so many calls cannot flood the context. */
function cappedTools(
  maxChars: number,
  execute: (name: string, argumentsText: string) => ReturnType<ActiveRun["execute"]>,
): Parameters<ActiveRun["useTools"]>[0] {
  let fed = 0;
  return async (name, argumentsText) => {
    if (fed >= maxChars) {
      return {
        isError: true,
        content: `Error: this turn has already read ${fed.toLocaleString("en-US")} characters of tool results; no more are given. Answer with what you have.`,
      };
    }
    const outcome = await execute(name, argumentsText);
    const room = maxChars - fed;
    fed += Math.min(outcome.content.length, room);
    return outcome.content.length <= room
      ? outcome
      : {
          ...outcome,
          content: `${outcome.content.slice(0, room)}\n[cut: this turn's tool results reached their limit]`,
        };
  };
}

/** What is left of the chat's daily budget for an agent run: the proxy refuses its calls once it is spent. */
function allowanceOf(config: EffectiveConfig, spend: DailySpend, price: ModelPrice | undefined): RunAllowance {
  const { dailyTokens, dailyCostUsd } = config.budget;
  return {
    ...(dailyTokens === undefined ? {} : { maxTokens: Math.max(0, dailyTokens - spend.tokens) }),
    ...(dailyCostUsd === undefined ? {} : { maxCostUsd: Math.max(0, dailyCostUsd - spend.costUsd) }),
    ...(price ? { price } : {}),
  };
}

/** Where a chat keeps the session of each agent, so that switching agents resumes neither in the other. */
export function sessionKeyOf(provider: Provider): "agentSessionId" | "codexSessionId" {
  return provider === "codex-agent" ? "codexSessionId" : "agentSessionId";
}

function withNote(systemPrompt: string, note: string | undefined): string {
  return note === undefined ? systemPrompt : `${systemPrompt}\n\n${note}`;
}

function toolCallbackUrl(route: ToolCallbackRoute, chatKey: string): string {
  switch (route.kind) {
    case "container":
      return `http://${WORKER_CALLBACK_HOST}${agentToolsPath(chatKey)}`;
    case "public-route":
      return `${route.baseUrl}${agentToolsPath(chatKey)}`;
  }
}
