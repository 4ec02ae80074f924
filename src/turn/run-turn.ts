import { errorEventOf } from "../adapters/errors.ts";
import { fitHistory } from "../adapters/fit-history.ts";
import { createAdapter } from "../adapters/index.ts";
import { type MediaLibrary, withFilesAsText } from "../adapters/media-parts.ts";
import { runToolLoop } from "../adapters/tool-loop.ts";
import type { Adapter } from "../adapters/types.ts";
import { type EffectiveConfig, resolveConfig } from "../config/chat-config.ts";
import { DEFAULT_MODELS, type Provider } from "../config/providers.ts";
import { redactSecrets } from "../config/secrets.ts";
import type { ToolCallbackRoute } from "../config/settings.ts";
import { dayKey, startOfNextDay } from "../config/zones.ts";
import type { UsageRecord } from "../db/usage.ts";
import { type ChatMcp, openChatMcp } from "../mcp/chat-mcp.ts";
import { planMedia } from "../media/load.ts";
import { mediaBucket } from "../media/services.ts";
import type { AgentErrorEvent, AgentEvent } from "../protocol/events.ts";
import type { HistoryMessage, UserMessage } from "../protocol/messages.ts";
import { agentToolsPath, type ModelTool, WORKER_CALLBACK_HOST } from "../protocol/run-payload.ts";
import { TurnTrust } from "../tools/context.ts";
import type { ActiveRun } from "./active-run.ts";
import { addSpend, budgetNotice, costOf, type DailySpend, exhaustedLimit, spendOn } from "./budget.ts";
import { TURN_BUDGET, TURN_TIME_LIMIT, userFacingError } from "./error-text.ts";
import { DraftAnswer, EditedAnswer, FinalAnswer, type LiveAnswer } from "./live-answer.ts";
import { type Answering, withFallbacks } from "./model-chain.ts";
import { Pacer } from "./pacer.ts";
import { mintRunToken } from "./run-token.ts";
import { StatusLine } from "./status-line.ts";
import { bytesForTokens, summarySection } from "./summary.ts";
import { toolContext } from "./tool-context.ts";
import type { TurnServices } from "./turn-services.ts";
import { startTyping } from "./typing.ts";

export interface TurnRequest {
  kind: "chat" | "task" | "agent";
  /** The turn's new messages, in order. */
  users: UserMessage[];
  inboxIds: number[];
  userId?: number;
  /** The Telegram message the turn answers (the last one of a batch): acknowledged with a reaction. */
  messageId?: number;
  replyToMessageId?: number;
  /** `/agent` runs one turn on the chat's agent (`claude-agent` or `codex-agent`) whatever the chat's provider. */
  providerOverride?: Provider;
  /** Said before the error text when the turn fails (a scheduled task's failure names the task). */
  failureNote?: string;
}

export type TurnOutcome =
  | { ok: true; text: string }
  | { ok: false; error: AgentErrorEvent }
  | { ok: "skipped"; reason: string };

/** The first streamed edit in a group waits this long, so that a quick answer is one formatted message. */
const FIRST_EDIT_AFTER_MS = 1_000;
/** Streamed calls to a group per minute, answer and status together: well under Telegram's 20. */
const GROUP_CALLS_PER_MINUTE = 15;
/** How long an answer may keep someone waiting before their message gets a 👀. */
const ACK_AFTER_MS = 1_500;

/** What a turn collected from its adapter's events. */
interface Collected {
  produced: HistoryMessage[];
  usage: { inputTokens: number; outputTokens: number };
  /** Each call's cost at the price of the model that made it (a turn may move to a fallback model). */
  costUsd: number;
  /** Whether any call's model has a price (else the turn's cost is unknown). */
  priced: boolean;
  toolCalls: number;
  result?: string;
  error?: AgentErrorEvent;
}

/**
 * One model turn: resolve the chat's provider, run its adapter over the history window plus the new messages, drive
 * Telegram from the events (typing, a status line for tool steps, the answer) and store the result. History, the
 * inbox rows and the turn's usage record are written together at the end; a failed turn keeps the user's messages
 * but never an error text as if the assistant had said it, nor half a tool exchange.
 */
export async function runTurn(services: TurnServices, request: TurnRequest): Promise<TurnOutcome> {
  // Registered first, so that /stop reaches a turn that is still reading its config.
  const run = services.beginRun(request.userId);
  // The platform ends an alarm after 15 minutes and would run the turn again from the start: end it first.
  run.stopAfter(services.turnDeadline - services.now());
  try {
    return await runTurnOf(services, request, run);
  } finally {
    run.end();
    services.endRun(run);
  }
}

async function runTurnOf(services: TurnServices, request: TurnRequest, run: ActiveRun): Promise<TurnOutcome> {
  const { store, settings, telegram, target } = services;
  const started = services.now();
  const stored = await services.configs.get(services.chat.id);
  const config = resolveConfig(stored.state === "valid" ? stored.config : undefined, settings);
  if (stored.state === "invalid") console.warn(`chat ${services.chat.id}: stored config ignored (${stored.problem})`);

  if (!config.enabled) {
    // A disabled chat gets no model call of any kind. Its messages are kept, so the conversation goes on when it is
    // enabled again; an /agent request or a task is not.
    if (request.kind === "agent") await safely(() => telegram.sendPlain(target, "⏸ The bot is disabled in this chat."));
    store.atomically(() => {
      if (request.kind === "chat") store.appendHistory(request.users, started);
      store.finish(request.inboxIds, started, request.kind === "chat" ? undefined : "the bot is disabled in this chat");
    });
    return { ok: "skipped", reason: "disabled" };
  }

  if (request.kind === "agent" && config.agentAccess === "admins" && !isAdmin(services, request.userId)) {
    // An agent runs shell commands in the chat's container: by default only the bot's admins may start one.
    await safely(() => telegram.sendPlain(target, "Only the bot's admins can run /agent in this chat."));
    store.finish(request.inboxIds, started, "/agent is for admins in this chat");
    return { ok: "skipped", reason: "not allowed" };
  }

  const spend = spendOn(dayKey(started, config.timezone), store.getMeta("spend"));
  const exhausted = exhaustedLimit(spend, config.budget);
  if (exhausted !== undefined) {
    if (!spend.noticeSent) {
      const hours = (startOfNextDay(started, config.timezone) - started) / 3_600_000;
      await safely(() => telegram.sendPlain(target, budgetNotice(exhausted, config.timezone, hours)));
    }
    store.atomically(() => {
      store.setMeta("spend", { ...spend, noticeSent: true });
      if (request.kind === "chat") store.appendHistory(request.users, started);
      store.finish(request.inboxIds, started, request.kind === "chat" ? undefined : "over the daily budget; not run");
    });
    return { ok: "skipped", reason: "budget" };
  }

  const provider = request.providerOverride ?? config.provider;
  const model = provider === config.provider ? config.model : DEFAULT_MODELS[provider];
  const choice = createAdapter(provider, settings, services.env);
  if (choice.kind === "unavailable") {
    const error: AgentErrorEvent = {
      type: "error",
      classification: "internal",
      retryable: false,
      message: choice.problem,
    };
    await safely(() =>
      telegram.sendPlain(
        target,
        `⚠️ This chat uses ${provider}, but ${choice.problem}. The bot's owner needs to set it.`,
      ),
    );
    failTurn(services, request, { error, now: started });
    return { ok: false, error };
  }

  // The chat's MCP servers' tools join the registry for this turn (only servers the allowlist leaves a tool of).
  const mcp = await openChatMcp(
    config.mcpServers.filter((server) => config.tools?.some((name) => name.startsWith(`${server.name}__`)) ?? true),
    { env: services.env, settings, signal: run.signal },
  );
  try {
    return await runTurnWithTools(services, request, { run, config, choice, provider, model, spend, started, mcp });
  } finally {
    await mcp.close();
  }
}

async function runTurnWithTools(
  services: TurnServices,
  request: TurnRequest,
  turn: {
    run: ActiveRun;
    config: EffectiveConfig;
    choice: { kind: "ready"; adapter: Adapter };
    provider: Provider;
    model: string;
    spend: DailySpend;
    started: number;
    mcp: ChatMcp;
  },
): Promise<TurnOutcome> {
  const { store, settings, telegram, target } = services;
  const { run, config, choice, provider, model, spend, started, mcp } = turn;
  const registry = services.registry.extendedWith(mcp.tools);
  const tools = registry.allowed(config.tools, settings);
  // The turn's usage and cost are recorded under the model that answers, a fallback when the chain moved to one.
  const answering: Answering = { provider, model };
  const adapter = request.providerOverride
    ? choice.adapter
    : withFallbacks({ services, config, adapter: choice.adapter, answering });
  // A task's prompt was written earlier, maybe by a steered model; an agent reads the web and files on its own.
  const trust = new TurnTrust(
    request.kind === "task"
      ? "a scheduled task's prompt"
      : choice.adapter.kind === "agent"
        ? "the agent's own tools"
        : undefined,
  );
  const context = toolContext(services, { userId: request.userId, trust, timezone: config.timezone });
  const fed = { characters: 0 };
  run.useTools(async (name, argumentsText) => {
    // Results are capped per tool; the whole turn's are capped too, so many calls cannot flood the context.
    if (fed.characters >= settings.toolResultsMaxChars) {
      return {
        isError: true,
        content: `Error: this turn has already read ${fed.characters.toLocaleString("en-US")} characters of tool results; no more are given. Answer with what you have.`,
      };
    }
    const outcome = await registry.execute(name, argumentsText, context, config.tools);
    const room = settings.toolResultsMaxChars - fed.characters;
    fed.characters += Math.min(outcome.content.length, room);
    return outcome.content.length <= room
      ? outcome
      : {
          ...outcome,
          content: `${outcome.content.slice(0, room)}\n[cut: this turn's tool results reached their limit]`,
        };
  });
  const summary = store.getMeta("summary");
  const collected: Collected = {
    produced: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    priced: false,
    toolCalls: 0,
  };
  const window = [
    ...fitHistory(store.historyWindow(settings.historyLimit, summary?.throughId ?? 0), {
      fixedBytes: 0,
      maxBytes: bytesForTokens(settings.historyWindowTokens),
    }),
    ...request.users,
  ];
  let history: HistoryMessage[] = window;
  let media: MediaLibrary | undefined;
  if (choice.adapter.kind === "model") {
    // Which files the model gets (the most recent images, text files as text) is decided and loaded once per turn.
    const plan = await planMedia({
      bucket: mediaBucket(services.env),
      history: window,
      newFrom: window.length - request.users.length,
      model,
      media: settings.media,
    });
    media = plan.library;
    if (plan.notices.length > 0) await safely(() => telegram.sendPlain(target, plan.notices.join("\n")));
  } else {
    history = withFilesAsText(window, "files are not passed to the agent");
  }
  const events = eventsOf(adapter, {
    services,
    stream: request.kind !== "task",
    run,
    provider,
    callbackToken:
      choice.adapter.kind === "agent"
        ? await mintRunToken(settings.botToken ?? "", {
            chatKey: services.chatKey,
            runId: run.id,
            // A little past the turn's own deadline: the run is stopped by then, and the token useless after.
            expiresAt: services.turnDeadline + 60_000,
          })
        : "",
    model,
    // The rolling summary (compaction) stands in for what the window no longer shows.
    systemPrompt:
      withNote(
        services.systemPrompt(
          config,
          tools.map((tool) => tool.name),
        ),
        mcp.note,
      ) + summarySection(summary),
    history,
    ...(media ? { media } : {}),
    tools: tools.map((tool) => registry.modelTool(tool)),
    // A long tool loop stops at the daily budget rather than running past it.
    budgetReached: () =>
      exhaustedLimit(addSpend(spend, collected.usage, collected.costUsd), config.budget) !== undefined,
  });

  const typing = startTyping(telegram, target);
  const { answer, status } = presentation(services, request);
  const interactive = request.kind !== "task";
  // A person waiting sees a Stop button after a few seconds, and a 👀 if nothing else shows up within a moment.
  const stopOffer = interactive
    ? setTimeout(() => status.offerStop(`stop:${run.id}`), settings.stream.stopButtonAfterMs)
    : undefined;
  const acknowledgement = acknowledge(services, request, answer);
  try {
    for await (const event of events) {
      if (event.type === "usage") {
        const price = settings.modelPrices.get(answering.model);
        collected.costUsd += costOf(event, price);
        collected.priced ||= price !== undefined;
      }
      collect({ services, provider, event, collected, status, answer });
      if (collected.result !== undefined || collected.error) break;
    }
  } catch (thrown) {
    collected.error = errorEventOf(thrown, provider);
  } finally {
    // From here on /stop and remote tool calls find no running turn.
    run.end();
    services.endRun(run);
    clearTimeout(stopOffer);
    clearTimeout(acknowledgement);
    await typing.stop();
  }
  let error = collected.error;
  switch (run.stopReason) {
    case "deadline":
      error = { type: "error", classification: "timeout", retryable: false, message: TURN_TIME_LIMIT };
      break;
    case "stopped":
      error = { type: "error", classification: "cancelled", retryable: false, message: "stopped" };
      break;
    case undefined:
      break;
  }
  if (!error && collected.result === undefined) {
    error = { type: "error", classification: "internal", retryable: true, message: `${provider}: no answer` };
  }

  const statusMessage = await status.close();
  // The status line goes once the answer (or the error) is there.
  const removeStatus = async () => {
    if (statusMessage !== undefined) await safely(() => telegram.deleteMessage(target, statusMessage));
  };
  // Nothing of an answer cut short stays on screen as if it were whole.
  if (error)
    await safely(() => answer.abandon(error.classification === "cancelled" ? "⏹ (stopped)" : "⚠️ (interrupted)"));

  const finished = services.now();
  const record: UsageRecord = {
    chatId: services.chat.id,
    kind: request.kind,
    provider: answering.provider,
    model: answering.model,
    inputTokens: collected.usage.inputTokens,
    outputTokens: collected.usage.outputTokens,
    toolCalls: collected.toolCalls,
    durationMs: finished - started,
    outcome: error ? "error" : "ok",
    costUsd: collected.priced ? collected.costUsd : null,
    createdAt: finished,
  };
  const spent = addSpend(spend, collected.usage, record.costUsd ?? 0);
  if (error) {
    console.warn(`chat ${services.chat.id}: turn failed (${error.classification}): ${redactSecrets(error.message)}`);
    const text = userFacingError(error);
    await safely(() => telegram.sendPlain(target, request.failureNote ? `${request.failureNote} ${text}` : text));
    await removeStatus();
    failTurn(services, request, { error, now: finished, usage: record, spent });
    return { ok: false, error };
  }
  const result = collected.result ?? "";
  const text = result.trim() === "" ? "…" : result;
  const delivered = await safely(() =>
    answer.finish(text, request.replyToMessageId ? { replyToMessageId: request.replyToMessageId } : {}),
  );
  await removeStatus();
  store.atomically(() => {
    store.appendHistory([...request.users, ...collected.produced, { role: "assistant", content: text }], finished);
    store.pruneHistory(settings.historyMaxStored);
    store.finish(request.inboxIds, finished, delivered ? undefined : "the answer could not be delivered to Telegram");
    store.bufferUsage(record, finished);
    store.setMeta("spend", spent);
  });
  return { ok: true, text: result };
}

function withNote(systemPrompt: string, note: string | undefined): string {
  return note === undefined ? systemPrompt : `${systemPrompt}\n\n${note}`;
}

interface TurnInput {
  services: TurnServices;
  /** Stream model calls (someone is watching); a task's turn does not. */
  stream: boolean;
  /** Whether the chat's daily budget is used up, counting this turn so far. */
  budgetReached: () => boolean;
  run: ActiveRun;
  /** What an agent's runner presents to call the turn's tools back. */
  callbackToken: string;
  /** The turn's provider (an agent's session is kept per agent). */
  provider: Provider;
  model: string;
  systemPrompt: string;
  history: HistoryMessage[];
  /** The files the history's attachments refer to, as the model gets them (model adapters only). */
  media?: MediaLibrary;
  tools: ModelTool[];
}

/** The adapter's events: `runToolLoop` over a model adapter, or an agent adapter's own loop. */
function eventsOf(adapter: Adapter, input: TurnInput): AsyncGenerator<AgentEvent> {
  const { services, run } = input;
  switch (adapter.kind) {
    case "model":
      return runToolLoop({
        adapter,
        request: {
          model: input.model,
          system: input.systemPrompt,
          messages: input.history,
          tools: input.tools,
          ...(input.media ? { media: input.media } : {}),
          signal: run.signal,
        },
        executeTool: (name, argumentsText) => run.execute(name, argumentsText),
        stream: input.stream,
        stopBeforeCall: () => (input.budgetReached() ? TURN_BUDGET : undefined),
      });
    case "agent": {
      const sessionId = services.store.getMeta(sessionKeyOf(input.provider));
      return adapter.run({
        chatKey: services.chatKey,
        model: input.model,
        systemPrompt: input.systemPrompt,
        history: input.history,
        tools: input.tools,
        ...(sessionId ? { sessionId } : {}),
        toolCallback: {
          url: toolCallbackUrl(services.settings.toolCallback, services.chatKey),
          token: input.callbackToken,
        },
        signal: run.signal,
      });
    }
  }
}

/** Where a chat keeps the session of each agent, so that switching agents resumes neither in the other. */
function sessionKeyOf(provider: Provider): "agentSessionId" | "codexSessionId" {
  return provider === "codex-agent" ? "codexSessionId" : "agentSessionId";
}

function toolCallbackUrl(route: ToolCallbackRoute, chatKey: string): string {
  switch (route.kind) {
    case "container":
      return `http://${WORKER_CALLBACK_HOST}${agentToolsPath(chatKey)}`;
    case "public-route":
      return `${route.baseUrl}${agentToolsPath(chatKey)}`;
  }
}

function collect(turn: {
  services: TurnServices;
  provider: Provider;
  event: AgentEvent;
  collected: Collected;
  status: StatusLine;
  answer: LiveAnswer;
}): void {
  const { services, provider, event, collected, status, answer } = turn;
  switch (event.type) {
    case "session_init":
      services.store.setMeta(sessionKeyOf(provider), event.sessionId);
      return;
    case "text_delta":
      answer.delta(event.text);
      status.writing();
      return;
    case "tool_start":
      collected.toolCalls++;
      // The text before a tool call was its preamble; the answer starts afresh after the tools.
      answer.restart();
      status.show(`⚙️ ${event.toolName}${event.preview ? `: ${event.preview}` : ""}`);
      return;
    case "tool_progress":
      status.show(`⚙️ ${event.toolName}${event.elapsedSeconds ? ` (${Math.round(event.elapsedSeconds)} s)` : ""}`);
      return;
    case "adapter_stderr":
      console.log(`[${provider}] ${redactSecrets(event.message).slice(0, 500)}`);
      return;
    case "message":
      collected.produced.push(event.message);
      return;
    case "usage":
      collected.usage.inputTokens += event.inputTokens;
      collected.usage.outputTokens += event.outputTokens;
      return;
    case "result":
      collected.result = event.text;
      return;
    case "error":
      collected.error = event;
      return;
    default:
      assertNever(event);
  }
}

/**
 * How this turn shows itself: in a private chat the answer streams as a draft (or, where Telegram refused drafts, as
 * one edited message), in groups and topics as one edited message; a task delivers only its final answer. The
 * answer and the status line share one pacer.
 */
function presentation(services: TurnServices, request: TurnRequest): { answer: LiveAnswer; status: StatusLine } {
  const { telegram, target, settings, store } = services;
  const privateChat = services.chat.type === "private";
  // In a group the answer's edits and the status line share the group's limit; in a private chat drafts are not
  // messages, so the status line paces itself apart from them (one message a second).
  const pacer = new Pacer(
    privateChat
      ? { minIntervalMs: settings.stream.draftIntervalMs }
      : { minIntervalMs: settings.stream.editIntervalMs, perMinute: GROUP_CALLS_PER_MINUTE },
  );
  const status = new StatusLine(telegram, target, privateChat ? new Pacer({ minIntervalMs: 1000 }) : pacer);
  const edited = (interval: Pacer) =>
    new EditedAnswer(telegram, target, interval, {
      ...(request.replyToMessageId ? { replyToMessageId: request.replyToMessageId } : {}),
      firstAfterMs: FIRST_EDIT_AFTER_MS,
    });
  if (request.kind === "task") return { answer: new FinalAnswer(telegram, target), status };
  if (!privateChat) return { answer: edited(pacer), status };
  // One message edit per second in a private chat, where a draft was not possible.
  const editsPerSecond = () => new Pacer({ minIntervalMs: 1000 });
  if (store.getMeta("draftsRefused")) return { answer: edited(editsPerSecond()), status };
  const answer = new DraftAnswer(telegram, target, pacer, () => {
    store.setMeta("draftsRefused", true);
    return edited(editsPerSecond());
  });
  return { answer, status };
}

/** Puts 👀 on the message being answered once the answer has kept the person waiting a moment (where configured). */
function acknowledge(
  services: TurnServices,
  request: TurnRequest,
  answer: LiveAnswer,
): ReturnType<typeof setTimeout> | undefined {
  const where = services.settings.ackReaction;
  const messageId = request.messageId;
  if (request.kind === "task" || messageId === undefined || where === "off") return undefined;
  if (where === "private" && services.chat.type !== "private") return undefined;
  return setTimeout(() => {
    if (answer.visible) return;
    services.telegram.setReaction(services.target, messageId, "👀").catch(() => undefined);
  }, ACK_AFTER_MS);
}

function assertNever(value: never): never {
  throw new Error(`unexpected event ${JSON.stringify(value)}`);
}

/** Keeps the user's messages (never an error text as the assistant's words), and what the attempt cost. */
function failTurn(
  services: TurnServices,
  request: TurnRequest,
  failure: { error: AgentErrorEvent; now: number; usage?: UsageRecord; spent?: DailySpend },
): void {
  const { error, now, usage, spent } = failure;
  services.store.atomically(() => {
    services.store.appendHistory(request.users, now);
    services.store.pruneHistory(services.settings.historyMaxStored);
    services.store.finish(
      request.inboxIds,
      now,
      `${error.classification}: ${redactSecrets(error.message).slice(0, 300)}`,
    );
    if (usage) services.store.bufferUsage(usage, now);
    if (spent) services.store.setMeta("spend", spent);
  });
}

function isAdmin(services: TurnServices, userId: number | undefined): boolean {
  return services.isAdminUser(userId);
}

/** Runs a Telegram or D1 call whose failure must not end the turn; true when it worked. */
async function safely(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    console.warn("side call failed:", redactSecrets(error instanceof Error ? error.message : String(error)));
    return false;
  }
}
