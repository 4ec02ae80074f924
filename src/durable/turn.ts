import { errorEventFrom, redactSecrets } from "../adapters/errors.ts";
import type { AgentErrorEvent } from "../adapters/events.ts";
import { createAdapter } from "../adapters/index.ts";
import type { HistoryMessage, UserMessage } from "../adapters/messages.ts";
import type { AdapterInput } from "../adapters/types.ts";
import { resolveConfig } from "../config/chat-config.ts";
import { DEFAULT_MODELS, type Provider } from "../config/providers.ts";
import { includes } from "../config/settings.ts";
import type { UsageRecord } from "../db/usage.ts";
import type { ToolContext } from "../tools/context.ts";
import { TURN_TIME_LIMIT, userFacingError } from "./error-messages.ts";
import type { ActiveRun, SessionServices } from "./session-services.ts";
import { StatusLine } from "./status-line.ts";
import { startTyping } from "./typing.ts";

export interface TurnRequest {
  kind: "chat" | "task" | "agent";
  /** The turn's new messages, in order. */
  users: UserMessage[];
  inboxIds: number[];
  userId?: number;
  replyToMessageId?: number;
  /** `/agent` runs one turn on claude-agent whatever the chat's provider. */
  providerOverride?: Provider;
  /** Said before the error text when the turn fails (a scheduled task's failure names the task). */
  failureNote?: string;
}

export type TurnOutcome =
  | { ok: true; text: string }
  | { ok: false; error: AgentErrorEvent }
  | { ok: "skipped"; reason: string };

const SESSION_KEY = "agentSessionId";
const TURN_DEADLINE = "turn deadline";

/**
 * One model turn: resolve the chat's provider, run its adapter over the history window plus the new messages, drive
 * Telegram from the events (typing, a status line for tool steps, the answer) and store the result. History, the
 * inbox rows and the turn's usage record are written together at the end; a failed turn keeps the user's messages
 * but never an error text as if the assistant had said it, nor half a tool exchange.
 */
export async function runTurn(services: SessionServices, request: TurnRequest): Promise<TurnOutcome> {
  // Registered first, so that /stop reaches a turn that is still reading its config.
  const run = services.beginRun();
  // The platform ends an alarm after 15 minutes and would run the turn again from the start: end it first.
  const deadline = setTimeout(
    () => run.controller.abort(TURN_DEADLINE),
    Math.max(1_000, services.turnDeadline - services.now()),
  );
  try {
    return await runTurnOf(services, request, run);
  } finally {
    clearTimeout(deadline);
    services.endRun(run);
  }
}

async function runTurnOf(services: SessionServices, request: TurnRequest, run: ActiveRun): Promise<TurnOutcome> {
  const { store, settings, telegram, target } = services;
  const started = services.now();
  const stored = await services.configs.get(services.chat.id);
  const config = resolveConfig(stored.state === "valid" ? stored.config : undefined, settings);
  if (stored.state === "invalid") console.warn(`chat ${services.chat.id}: stored config ignored (${stored.problem})`);

  if (!config.enabled && request.kind === "chat") {
    store.atomically(() => {
      store.appendHistory(request.users, started);
      store.finish(request.inboxIds, started);
    });
    return { ok: "skipped", reason: "disabled" };
  }

  const provider = request.providerOverride ?? config.provider;
  const model = provider === config.provider ? config.model : DEFAULT_MODELS[provider];
  const choice = createAdapter(provider, settings, services.env);
  if ("problem" in choice) {
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
    failTurn(services, request, error, started);
    return { ok: false, error };
  }

  const tools = services.registry.allowed(config.tools);
  const context = toolContext(services, request.userId);
  run.execute = (name, argumentsText) => services.registry.execute(name, argumentsText, context, config.tools);
  const sessionId = provider === "claude-agent" ? (store.getMeta(SESSION_KEY) as string | undefined) : undefined;
  const input: AdapterInput = {
    chatKey: services.chatKey,
    model,
    systemPrompt: services.systemPrompt(
      config,
      tools.map((tool) => tool.name),
    ),
    history: [...store.historyWindow(settings.historyLimit), ...request.users],
    tools: tools.map((tool) => services.registry.modelTool(tool)),
    ...(sessionId ? { sessionId } : {}),
    ...(choice.adapter.runsToolsRemotely
      ? {
          toolCallback: {
            url: `${settings.agentCallbackUrl}/agent/tools/${encodeURIComponent(services.chatKey)}`,
            token: run.token(),
          },
        }
      : {}),
    executeTool: run.execute,
    signal: run.controller.signal,
  };

  const typing = startTyping(telegram, target);
  const status = new StatusLine(telegram, target);
  const produced: HistoryMessage[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  let toolCalls = 0;
  let result: string | undefined;
  let error: AgentErrorEvent | undefined;
  try {
    for await (const event of choice.adapter.run(input)) {
      if (event.type === "session_init") store.setMeta(SESSION_KEY, event.sessionId);
      else if (event.type === "tool_start") {
        toolCalls++;
        status.show(`⚙️ ${event.toolName}${event.preview ? `: ${event.preview}` : ""}`);
      } else if (event.type === "tool_progress") {
        status.show(`⚙️ ${event.toolName}${event.elapsedSeconds ? ` (${Math.round(event.elapsedSeconds)} s)` : ""}`);
      } else if (event.type === "adapter_stderr")
        console.log(`[${provider}] ${redactSecrets(event.message).slice(0, 500)}`);
      else if (event.type === "message") produced.push(event.message);
      else if (event.type === "usage") {
        usage.inputTokens += event.inputTokens;
        usage.outputTokens += event.outputTokens;
      } else if (event.type === "result") result = event.text;
      else if (event.type === "error") error = event;
      if (result !== undefined || error) break;
    }
  } catch (thrown) {
    error = errorEventFrom(thrown, provider);
  } finally {
    services.endRun(run);
    await typing.stop();
  }
  if (run.controller.signal.aborted) {
    error =
      run.controller.signal.reason === TURN_DEADLINE
        ? { type: "error", classification: "timeout", retryable: false, message: TURN_TIME_LIMIT }
        : { type: "error", classification: "cancelled", retryable: false, message: "stopped" };
  }
  error ??=
    result === undefined
      ? { type: "error", classification: "internal", retryable: true, message: `${provider}: no answer` }
      : undefined;

  const statusMessage = await status.close();
  if (statusMessage !== undefined) await safely(() => telegram.deleteMessage(target, statusMessage));

  const finished = services.now();
  const record: UsageRecord = {
    chatId: services.chat.id,
    kind: request.kind,
    provider,
    model,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    toolCalls,
    durationMs: finished - started,
    outcome: error ? "error" : "ok",
    createdAt: finished,
  };
  if (error) {
    console.warn(`chat ${services.chat.id}: turn failed (${error.classification}): ${redactSecrets(error.message)}`);
    const text = userFacingError(error);
    await safely(() => telegram.sendPlain(target, request.failureNote ? `${request.failureNote} ${text}` : text));
    failTurn(services, request, error, finished, record);
  } else {
    const text = result!.trim() === "" ? "…" : result!;
    const delivered = await safely(() =>
      telegram.sendMarkdown(
        target,
        text,
        request.replyToMessageId ? { replyToMessageId: request.replyToMessageId } : {},
      ),
    );
    store.atomically(() => {
      store.appendHistory([...request.users, ...produced, { role: "assistant", content: text }], finished);
      store.finish(request.inboxIds, finished, delivered ? undefined : "the answer could not be delivered to Telegram");
      store.bufferUsage(record, finished);
    });
  }
  return error ? { ok: false, error } : { ok: true, text: result! };
}

function failTurn(
  services: SessionServices,
  request: TurnRequest,
  error: AgentErrorEvent,
  now: number,
  usage?: UsageRecord,
): void {
  services.store.atomically(() => {
    services.store.appendHistory(request.users, now);
    services.store.finish(
      request.inboxIds,
      now,
      `${error.classification}: ${redactSecrets(error.message).slice(0, 300)}`,
    );
    if (usage) services.store.bufferUsage(usage, now);
  });
}

export function toolContext(services: SessionServices, userId: number | undefined): ToolContext {
  return {
    chatId: services.chat.id,
    threadId: services.target.threadId,
    userId,
    isAdminChat: includes(services.settings.adminChatIds, services.chat.id),
    env: services.env,
    db: services.db,
    timezone: services.settings.defaultTimezone,
    now: services.now,
    isChatAllowed: (chatId) => includes(services.settings.allowedChats, chatId),
    sendMessage: async (target, text) => {
      await services.telegram.sendMarkdown(target, text);
    },
    tasksChanged: services.tasksChanged,
  };
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
