import type { RunAllowance } from "../adapters/agent-runs.ts";
import { fitHistory } from "../adapters/fit-history.ts";
import { type MediaLibrary, withFilesAsText } from "../adapters/media-parts.ts";
import { functionTools } from "../adapters/request-tools.ts";
import type { Adapter, AgentAdapter, ModelAdapter } from "../adapters/types.ts";
import type { PaidCalls } from "../budget/paid-calls.ts";
import type { DailySpend } from "../budget/spend-slot.ts";
import { bytesForTokens, estimateTokens, summarySection, tokensOfBytes } from "../compaction/summary.ts";
import { type HistorySummary, summarySlot } from "../compaction/summary-slots.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import type { Provider } from "../config/providers.ts";
import type { ToolCallbackRoute } from "../config/settings.ts";
import type { ModelPrice } from "../config/settings-lists.ts";
import { errorText } from "../lib/errors.ts";
import type { ChatMcp } from "../mcp/chat-mcp.ts";
import { planMedia } from "../media/load.ts";
import { outsideOfPeople } from "../memory/people.ts";
import type { AgentEvent } from "../protocol/events.ts";
import { jsonBytesOfAll, utf8Bytes } from "../protocol/json-size.ts";
import type { HistoryMessage } from "../protocol/messages.ts";
import { agentToolsPath, type ModelTool, WORKER_CALLBACK_HOST } from "../protocol/run-payload.ts";
import { mintRunToken } from "../protocol/run-token.ts";
import { NO_SKILLS, type TurnSkills } from "../skills/skill.ts";
import { TurnTrust } from "../tools/context.ts";
import { noteAddressesPeopleWrote } from "../tools/outward-policy.ts";
import type { ActiveRun } from "./active-run.ts";
import type { ChatContext } from "./chat-context.ts";
import { armTools, runEngine } from "./engine/turn-engine.ts";
import type { TurnPolicy } from "./engine/turn-policy.ts";
import { type PromptFacts, turnPrompt } from "./engine/turn-prompt.ts";
import { turnTools } from "./engine/turn-tools.ts";
import { helperSpawner } from "./helpers.ts";
import { markOtherMembers } from "./other-members.ts";
import { meteredServerSearches, type ServerSearch, serverSearchOf, withServerSearch } from "./server-search.ts";
import { speakersOf } from "./speakers.ts";
import type { Tally } from "./tally.ts";
import { toolContext } from "./tool-context.ts";
import type { AdmittedTurn } from "./turn-request.ts";
import { sessionSlotOf } from "./turn-slots.ts";

export interface ConversationInput {
  request: AdmittedTurn;
  config: EffectiveConfig;
  adapter: Adapter;
  provider: Provider;
  model: string;
  run: ActiveRun;
  mcp: ChatMcp;
  /** What kind of turn it is (a chat's or a scheduled task's): its tools, streaming, stops and cap. */
  policy: TurnPolicy;
  /** The day's spend before the turn (an agent's allowance), and the turn's own tally and paid calls. */
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
  policy: TurnPolicy;
  adapter: Adapter;
  mcp: ChatMcp;
  summary: HistorySummary | undefined;
  window: readonly HistoryMessage[];
}): TurnTrust {
  const { policy, adapter, mcp, summary, window } = input;
  if (policy.untrusted !== undefined) return new TurnTrust(policy.untrusted);
  if (adapter.kind === "agent") return new TurnTrust("the agent's own tools");
  if (mcp.tools.length > 0 || mcp.note !== undefined) return new TurnTrust("the MCP servers' tool descriptions");
  if (summary?.outside) return new TurnTrust(`the summary of earlier messages, which holds ${summary.outside}`);
  const marked = window.find((message) => message.outside !== undefined)?.outside;
  return new TurnTrust(marked === undefined ? undefined : `earlier messages, which hold ${marked}`);
}

/**
 * What the model is given and how it is asked: the turn's tools and system prompt as the engine assembles them for
 * its policy (chat or scheduled task), wired to the running turn, the history window with the summary of what it no
 * longer shows, and the files it may see. Returns the adapter's events: the engine's loop over a model adapter, or an
 * agent adapter's own loop.
 */
export async function startConversation(ctx: ChatContext, input: ConversationInput): Promise<Conversation> {
  const { request, config, adapter, run, policy } = input;
  const signal = input.signal ?? run.signal;
  const { settings, stores } = ctx;
  const registry = ctx.registry.extendedWith(input.mcp.tools);
  const serverSearch = serverSearchOf(settings, config, adapter.kind);
  // Two reads of D1 that do not wait for each other (each is a round trip on the path of the answer).
  const [skills, people] = await Promise.all([skillsOf(ctx), speakersOf(ctx, request)]);
  const offered = turnTools({
    policy,
    registry,
    allowlist: config.tools,
    settings,
    adapterKind: adapter.kind,
    skills,
    serverSearch: serverSearch !== undefined,
  });
  const summary = stores.meta.get(summarySlot);
  const window = [
    ...fitHistory(stores.history.window(settings.historyLimit, summary?.throughId ?? 0), {
      // The skills given whole and listed take their part of the window.
      fixedBytes: utf8Bytes(offered.skillText),
      maxBytes: bytesForTokens(settings.historyWindowTokens),
    }),
    ...request.users,
  ];
  const trust = startingTrust({ policy, adapter, mcp: input.mcp, summary, window });
  noteAddressesPeopleWrote(trust, window);
  markOtherMembers(trust, window, { senders: request.senders, isAdmin: (id) => ctx.access.isAdmin(id) });
  const fromPeople = outsideOfPeople(people);
  if (fromPeople) trust.markUntrusted(fromPeople);
  const context = toolContext(ctx, {
    senders: request.senders,
    trust,
    timezone: config.timezone,
    paid: input.paid,
    helpers: helperSpawner(ctx, { senders: request.senders, trust, config, tally: input.tally, paid: input.paid }),
  });
  armTools(run, policy, (name, argumentsText) => registry.execute(name, argumentsText, context, config.tools));
  // The rolling summary (compaction) stands in for what the window no longer shows.
  const systemPrompt = turnPrompt({
    policy,
    facts: { ...chatFacts(ctx, config), people },
    toolNames: offered.toolNames,
    skillText: offered.skillText,
    mcpNote: input.mcp.note,
    tail: summarySection(summary),
  });
  const { modelTools } = offered;
  const assembled: Assembled = { systemPrompt, window, modelTools, trust, signal, skills, serverSearch };
  return {
    events:
      adapter.kind === "model"
        ? await modelEvents(ctx, input, adapter, assembled)
        : await agentEvents(ctx, input, adapter, assembled),
    trust,
    estimatedInputTokens: () => estimatedInputTokens(systemPrompt, window, modelTools),
  };
}

/** The turn as the engine assembled it, for the adapter that answers it. */
interface Assembled {
  systemPrompt: string;
  window: HistoryMessage[];
  modelTools: ModelTool[];
  trust: TurnTrust;
  signal: AbortSignal;
  skills: TurnSkills;
  serverSearch: ServerSearch | undefined;
}

/** What the prompt says of this chat: its name, its kind, its topic and its clock. */
function chatFacts(ctx: ChatContext, config: EffectiveConfig): PromptFacts {
  return {
    botName: ctx.settings.botName,
    ...(config.systemPrompt ? { chatPrompt: config.systemPrompt } : {}),
    chat: {
      type: ctx.chat.type,
      ...(ctx.chat.title ? { title: ctx.chat.title } : {}),
      isForumTopic: ctx.target.threadId !== undefined,
    },
    now: new Date(ctx.now()),
    timezone: config.timezone,
  };
}

/** A model's turn: the engine's loop over the window and the files the model may see (and the provider's search). */
async function modelEvents(
  ctx: ChatContext,
  input: ConversationInput,
  adapter: ModelAdapter,
  turn: Assembled,
): Promise<AsyncGenerator<AgentEvent>> {
  const { window, serverSearch } = turn;
  const media = await mediaFor(ctx, {
    window,
    newMessages: input.request.users.length,
    model: input.model,
    told: input.told ?? new Set(),
  });
  const events = runEngine({
    policy: input.policy,
    adapter,
    run: input.run,
    request: {
      model: input.model,
      system: turn.systemPrompt,
      messages: window,
      tools: functionTools(turn.modelTools),
      ...(media ? { media } : {}),
      signal: turn.signal,
    },
    ...(serverSearch ? { prepareCall: withServerSearch(serverSearch, input.paid) } : {}),
  });
  return serverSearch
    ? meteredServerSearches(events, { search: serverSearch, paid: input.paid, trust: turn.trust })
    : events;
}

/** An agent's turn: its own loop in its container, resuming its session, calling the chat's tools back. */
async function agentEvents(
  ctx: ChatContext,
  input: ConversationInput,
  adapter: AgentAdapter,
  turn: Assembled,
): Promise<AsyncGenerator<AgentEvent>> {
  const { settings, stores } = ctx;
  const sessionId = stores.meta.get(sessionSlotOf(input.provider));
  const token = await mintRunToken(settings.botToken ?? "", {
    chatKey: ctx.chatKey,
    runId: input.run.id,
    // A little past the turn's own deadline: the run is stopped by then, and the token useless after.
    expiresAt: ctx.turnDeadline + 60_000,
  });
  return adapter.run({
    chatKey: ctx.chatKey,
    model: input.model,
    systemPrompt: turn.systemPrompt,
    history: withFilesAsText(turn.window, "files are not passed to the agent"),
    tools: turn.modelTools,
    ...(sessionId ? { sessionId } : {}),
    toolCallback: { url: toolCallbackUrl(settings.toolCallback, ctx.chatKey), token },
    skills: turn.skills.listed.map(({ name, description, body }) => ({ name, description, body })),
    signal: turn.signal,
    allowance: allowanceOf(input.config, input.spend, settings.modelPrices.get(input.model)),
  });
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
    shelf: ctx.ingest.shelf,
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

/** What is left of the chat's daily budget for an agent run: the proxy refuses its calls once it is spent. */
function allowanceOf(config: EffectiveConfig, spend: DailySpend, price: ModelPrice | undefined): RunAllowance {
  const { dailyTokens, dailyCostUsd } = config.budget;
  return {
    ...(dailyTokens === undefined ? {} : { maxTokens: Math.max(0, dailyTokens - spend.tokens) }),
    ...(dailyCostUsd === undefined ? {} : { maxCostUsd: Math.max(0, dailyCostUsd - spend.costUsd) }),
    ...(price ? { price } : {}),
  };
}

function toolCallbackUrl(route: ToolCallbackRoute, chatKey: string): string {
  switch (route.kind) {
    case "container":
      return `http://${WORKER_CALLBACK_HOST}${agentToolsPath(chatKey)}`;
    case "public-route":
      return `${route.baseUrl}${agentToolsPath(chatKey)}`;
  }
}
