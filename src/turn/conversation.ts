import { fitHistory } from "../adapters/fit-history.ts";
import { type MediaLibrary, withFilesAsText } from "../adapters/media-parts.ts";
import { runToolLoop } from "../adapters/tool-loop.ts";
import type { Adapter } from "../adapters/types.ts";
import { addSpend, exhaustedLimit } from "../budget/budget.ts";
import type { PaidCalls } from "../budget/paid-calls.ts";
import { bytesForTokens, summarySection } from "../compaction/summary.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import type { ToolCallbackRoute } from "../config/settings.ts";
import { bestEffort } from "../lib/best-effort.ts";
import type { ChatMcp } from "../mcp/chat-mcp.ts";
import { planMedia } from "../media/load.ts";
import { mediaBucket } from "../media/services.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { HistoryMessage } from "../protocol/messages.ts";
import { agentToolsPath, WORKER_CALLBACK_HOST } from "../protocol/run-payload.ts";
import { mintRunToken } from "../protocol/run-token.ts";
import { TURN_BUDGET } from "../reply/error-text.ts";
import type { DailySpend } from "../store/chat-meta.ts";
import { TurnTrust } from "../tools/context.ts";
import type { ActiveRun } from "./active-run.ts";
import type { ChatContext } from "./chat-context.ts";
import { meteredServerSearches, serverSearchOf, withServerSearch } from "./server-search.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import type { Tally } from "./tally.ts";
import { toolContext } from "./tool-context.ts";
import type { TurnRequest } from "./turn-request.ts";

export interface ConversationInput {
  request: TurnRequest;
  config: EffectiveConfig;
  adapter: Adapter;
  model: string;
  run: ActiveRun;
  mcp: ChatMcp;
  /** The day's spend before the turn, and the turn's own tally and paid calls: a long tool loop stops at the budget. */
  spend: DailySpend;
  tally: Tally;
  paid: PaidCalls;
}

/**
 * What the model is given and how it is asked: the chat's tools (its MCP servers' included, narrowed by its
 * allowlist) wired to the running turn, the history window with the summary of what it no longer shows, the files
 * it may see, and the system prompt. Returns the adapter's events: `runToolLoop` over a model adapter, or an agent
 * adapter's own loop.
 */
export async function startConversation(
  ctx: ChatContext,
  input: ConversationInput,
): Promise<AsyncGenerator<AgentEvent>> {
  const { request, config, adapter, run } = input;
  const { settings, stores } = ctx;
  const registry = ctx.registry.extendedWith(input.mcp.tools);
  const serverSearch = serverSearchOf(settings, config, adapter.kind);
  // Anthropic's server-side search, where it is used, takes the place of `web_search`.
  const tools = registry
    .allowed(config.tools, settings)
    .filter((tool) => serverSearch === undefined || tool.name !== "web_search");
  // A task's prompt was written earlier, maybe by a steered model; an agent reads the web and files on its own.
  const trust = new TurnTrust(
    request.kind === "task"
      ? "a scheduled task's prompt"
      : adapter.kind === "agent"
        ? "the agent's own tools"
        : undefined,
  );
  const context = toolContext(ctx, { userId: request.userId, trust, timezone: config.timezone, paid: input.paid });
  run.useTools(
    cappedTools(settings.toolResultsMaxChars, (name, argumentsText) =>
      registry.execute(name, argumentsText, context, config.tools),
    ),
  );

  const summary = stores.meta.get("summary");
  const window = [
    ...fitHistory(stores.history.window(settings.historyLimit, summary?.throughId ?? 0), {
      fixedBytes: 0,
      maxBytes: bytesForTokens(settings.historyWindowTokens),
    }),
    ...request.users,
  ];
  // The rolling summary (compaction) stands in for what the window no longer shows.
  const systemPrompt =
    withNote(
      buildSystemPrompt({
        botName: settings.botName,
        ...(config.systemPrompt ? { chatPrompt: config.systemPrompt } : {}),
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
      const media = await mediaFor(ctx, { window, newMessages: request.users.length, model: input.model });
      const events = runToolLoop({
        adapter,
        request: {
          model: input.model,
          system: systemPrompt,
          messages: window,
          tools: modelTools,
          ...(media ? { media } : {}),
          signal: run.signal,
        },
        executeTool: (name, argumentsText) => run.execute(name, argumentsText),
        // Someone is watching a chat's turn; a task's turn only delivers its end.
        stream: request.kind !== "task",
        // A long tool loop stops at the daily budget rather than running past it.
        stopBeforeCall: () =>
          exhaustedLimit(
            addSpend(input.spend, input.tally.usage, input.tally.costUsd + input.paid.costUsd),
            config.budget,
          ) === undefined
            ? undefined
            : TURN_BUDGET,
        ...(serverSearch ? { prepareCall: withServerSearch(serverSearch, input.paid) } : {}),
      });
      return serverSearch ? meteredServerSearches(events, { search: serverSearch, paid: input.paid, trust }) : events;
    }
    case "agent": {
      const sessionId = stores.meta.get("agentSessionId");
      const token = await mintRunToken(settings.botToken ?? "", {
        chatKey: ctx.chatKey,
        runId: run.id,
        // A little past the turn's own deadline: the run is stopped by then, and the token useless after.
        expiresAt: ctx.turnDeadline + 60_000,
      });
      return adapter.run({
        chatKey: ctx.chatKey,
        model: input.model,
        systemPrompt,
        history: withFilesAsText(window, "files are not passed to the agent"),
        tools: modelTools,
        ...(sessionId ? { sessionId } : {}),
        toolCallback: { url: toolCallbackUrl(settings.toolCallback, ctx.chatKey), token },
        signal: run.signal,
      });
    }
  }
}

/** Which files the model gets (the most recent images, text files as text), decided and loaded once per turn. */
async function mediaFor(
  ctx: ChatContext,
  input: { window: HistoryMessage[]; newMessages: number; model: string },
): Promise<MediaLibrary | undefined> {
  const plan = await planMedia({
    bucket: mediaBucket(ctx.env),
    history: input.window,
    newFrom: input.window.length - input.newMessages,
    model: input.model,
    media: ctx.settings.media,
  });
  if (plan.notices.length > 0) {
    await bestEffort("telling which files the model cannot see", () =>
      ctx.telegram.sendPlain(ctx.target, plan.notices.join("\n")),
    );
  }
  return plan.library;
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
