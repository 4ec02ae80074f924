import { DurableObject } from "cloudflare:workers";
import { redactSecrets } from "../adapters/errors.ts";
import type { ToolOutcome } from "../adapters/types.ts";
import { CachedChatConfig, ChatConfigStore, type StoredConfig } from "../config/config-store.ts";
import { newRunToken, secretsEqual } from "../config/secrets.ts";
import { settingsOf } from "../config/settings.ts";
import { nextDueAt } from "../db/tasks.ts";
import { type UsageRecord, writeUsage } from "../db/usage.ts";
import type { Env } from "../env.ts";
import { isBotCommand } from "../telegram/bot-commands.ts";
import { TelegramClient } from "../telegram/client.ts";
import { type ChatTarget, type IncomingMessage, sessionKeyOf } from "../telegram/update.ts";
import { database } from "../tools/context.ts";
import { tools } from "../tools/index.ts";
import { ChatStore, type InboxItem } from "./chat-store.ts";
import { handleCommand } from "./commands.ts";
import type { ActiveRun, ChatDescription, SessionServices } from "./session-services.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import { enqueueDueTasks, runTask, type TaskPayload } from "./task-runner.ts";
import { runTurn } from "./turn.ts";
import { userMessageOf } from "./user-message.ts";

/** A message that failed this many times (the object died mid-turn each time) is given up, and the chat told. */
const MAX_ATTEMPTS = 3;
/** One alarm works at most this long (of the platform's 15 minutes), then hands over to a fresh alarm. */
const ALARM_BUDGET_MS = 10 * 60 * 1000;
/** A turn is stopped this long after its alarm began: the platform ends an alarm at 15 minutes and retries it. */
const TURN_WALL_MS = 13 * 60 * 1000;
const STRANGER_NOTICE_INTERVAL_MS = 60 * 60 * 1000;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const USAGE_RETRY_MS = 60 * 1000;

export type Access = "allowed" | "stranger";

/**
 * One chat (or forum topic): a durable inbox, the conversation, and the turn runner. The webhook only enqueues;
 * all work happens in the alarm, which the platform retries if the object dies mid-turn.
 */
export class ChatSession extends DurableObject<Env> {
  private readonly store: ChatStore;
  private activeRun: ActiveRun | undefined;
  /** The alarm's work while it runs: enqueue leaves new messages to it, and tests wait for it to settle. */
  private running: Promise<void> | undefined;
  /** When the current (or last) alarm began; every turn runs inside one, and its deadline counts from here. */
  private alarmStartedAt = 0;
  /** A message was queued while the alarm ran and did not set the alarm itself. */
  private arrivedDuringDrain = false;
  /** After a failed usage write, not before this time again. */
  private usageRetryAt = 0;
  /** When the alarm is set for, as this instance last set it; undefined when unknown (new instance, alarm running). */
  private alarmAt: number | null | undefined;
  private telegramClient: TelegramClient | undefined;
  private readonly configs: CachedChatConfig;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ChatStore(ctx.storage);
    this.configs = new CachedChatConfig(new ChatConfigStore(env.CONFIG, tools.names));
    void ctx.blockConcurrencyWhile(() => this.store.migrate());
  }

  /** Durably queues one update. Answers once the row is written; a redelivered update is a no-op. */
  async enqueue(message: IncomingMessage, access: Access): Promise<"queued" | "duplicate"> {
    const now = Date.now();
    const id = this.store.enqueue(
      `update:${message.updateId}`,
      access === "allowed" ? "message" : "stranger",
      message,
      now,
    );
    if (id === undefined) return "duplicate";
    // /stop must reach a running turn now, not after it; the turn then says it stopped.
    if (access === "allowed" && message.command?.name === "stop" && this.activeRun) {
      this.activeRun.controller.abort("stopped by /stop");
      this.store.finish([id], now);
      return "queued";
    }
    if (this.running) {
      // A running drain takes it, or re-arms the alarm when it ends (see drain): no second alarm to schedule.
      this.arrivedDuringDrain = true;
      return "queued";
    }
    await this.wakeBy(now);
    return "queued";
  }

  /** The admin API changed this chat's config: use it from the next turn, without waiting for KV to catch up. */
  async configChanged(chatId: number, stored: StoredConfig): Promise<void> {
    this.configs.remember(chatId, stored);
  }

  /** Called when this chat's scheduled tasks change (from any chat's tool call): re-reads the next due time. */
  async tasksChanged(chatId: number, threadId?: number): Promise<void> {
    if (this.store.getMeta("target") === undefined) {
      this.store.setMeta("target", { chatId, ...(threadId !== undefined ? { threadId } : {}) });
    }
    await this.refreshNextTask();
    await this.scheduleNextWake();
  }

  /**
   * A tool call from a remote agent runner during this chat's running turn. The per-run token is the proof: without
   * a running turn, or with another token, nothing runs.
   */
  async runRemoteTool(token: string, name: string, argumentsText: string): Promise<ToolOutcome | "unauthorized"> {
    const run = this.activeRun;
    const issued = run?.issuedToken();
    if (!run || issued === undefined || !(await secretsEqual(token, issued, { expectedIsLongLived: false })))
      return "unauthorized";
    return run.execute(name, argumentsText);
  }

  override async alarm(): Promise<void> {
    this.alarmAt = undefined;
    const work = this.drain();
    this.running = work;
    try {
      await work;
    } finally {
      if (this.running === work) this.running = undefined;
    }
  }

  private async drain(): Promise<void> {
    this.alarmStartedAt = Date.now();
    const deadline = this.alarmStartedAt + ALARM_BUDGET_MS;
    await this.queueDueTasks();
    for (;;) {
      const items = this.store.takePending();
      if (items.length === 0) break;
      await this.process(items);
      if (Date.now() > deadline) break;
      await this.queueDueTasks();
    }
    this.pruneOccasionally();
    await this.flushUsage();
    await this.scheduleNextWake();
    // Messages queued during the awaits above found the drain still running. No await between the check and the
    // end of the alarm, so none can slip through.
    while (this.arrivedDuringDrain) {
      this.arrivedDuringDrain = false;
      if (this.store.hasPending()) await this.wakeBy(Date.now());
    }
  }

  /**
   * Writes the buffered usage records to D1 in one batch, once the oldest has waited USAGE_FLUSH_SECONDS (0: after
   * every alarm). A D1 write per turn cost more than the rest of a turn under load; a batch costs one round trip.
   * A failed write keeps the records for the next try.
   */
  private async flushUsage(): Promise<void> {
    const oldest = this.store.oldestBufferedUsage();
    const now = Date.now();
    if (oldest === undefined || now - oldest < settingsOf(this.env).usageFlushMs || now < this.usageRetryAt) return;
    const rows = this.store.bufferedUsage();
    const source = this.ctx.id.toString();
    try {
      await writeUsage(
        database(this.env),
        rows.map((row) => ({ ...(row.record as UsageRecord), source: `${source}:${row.id}` })),
      );
      this.store.dropBufferedUsage(rows.at(-1)!.id);
    } catch (error) {
      this.usageRetryAt = now + USAGE_RETRY_MS;
      console.warn("writing usage to D1 failed; will retry", error instanceof Error ? error.message : error);
    }
  }

  private async process(items: InboxItem[]): Promise<void> {
    const now = Date.now();
    for (const item of items) {
      if (item.kind === "message" || item.kind === "stranger") this.remember(item.payload as IncomingMessage);
    }
    const services = this.services();
    let batch: { ids: number[]; messages: IncomingMessage[] } = { ids: [], messages: [] };
    const flush = async () => {
      if (batch.messages.length === 0) return;
      const { ids, messages } = batch;
      batch = { ids: [], messages: [] };
      const last = messages.at(-1)!;
      await this.contained(services, ids, () =>
        runTurn(services, {
          kind: "chat",
          users: messages.map(userMessageOf),
          inboxIds: ids,
          ...(last.from ? { userId: last.from.id } : {}),
          ...(last.chat.type === "private" ? {} : { replyToMessageId: last.messageId }),
        }),
      );
    };

    for (const item of items) {
      if (item.attempts > MAX_ATTEMPTS) {
        await flush();
        this.store.finish([item.id], now, `gave up after ${MAX_ATTEMPTS} attempts`);
        await services.telegram
          .sendPlain(services.target, "⚠️ I could not handle a message after several attempts and gave up on it.")
          .catch(() => undefined);
        continue;
      }
      if (item.kind === "message") {
        const message = item.payload as IncomingMessage;
        if (!message.command || !isBotCommand(message.command.name)) {
          batch.ids.push(item.id);
          batch.messages.push(message);
          continue;
        }
      }
      await flush();
      await this.contained(services, [item.id], () => this.processOne(services, item));
    }
    await flush();
  }

  private async processOne(services: SessionServices, item: InboxItem): Promise<void> {
    if (item.kind === "stranger") return this.answerStranger(services, item);
    if (item.kind === "task") return runTask(services, item.id, item.payload as TaskPayload);
    if (!(await handleCommand(services, item.payload as IncomingMessage, item.id)))
      this.store.finish([item.id], Date.now());
  }

  /**
   * Runs one item's work so that its failure (Telegram refusing a reply, D1 down while a task starts) fails that item
   * alone: it is recorded and the chat told, and the items after it go on.
   */
  private async contained(services: SessionServices, ids: number[], work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      console.error(`chat ${services.chat.id}: handling a message failed: ${redactSecrets(detail)}`);
      this.store.finish(ids, Date.now(), `internal: ${redactSecrets(detail).slice(0, 300)}`);
      await services.telegram
        .sendPlain(services.target, "⚠️ Something went wrong handling that message.")
        .catch(() => undefined);
    }
  }

  /** A chat that is not allowed hears its id at most once an hour, and costs no model call. */
  private async answerStranger(services: SessionServices, item: InboxItem): Promise<void> {
    const now = Date.now();
    const last = this.store.getMeta("strangerNoticeAt");
    if (typeof last !== "number" || now - last >= STRANGER_NOTICE_INTERVAL_MS) {
      this.store.setMeta("strangerNoticeAt", now);
      await services.telegram
        .sendMarkdown(
          services.target,
          `This bot is private. This chat's id is \`${services.chat.id}\`; its owner can allow it.`,
        )
        .catch((error: unknown) =>
          console.warn("stranger notice failed", error instanceof Error ? error.message : error),
        );
    }
    this.store.finish([item.id], now);
  }

  private remember(message: IncomingMessage): void {
    const target: ChatTarget = {
      chatId: message.chat.id,
      ...(message.threadId !== undefined ? { threadId: message.threadId } : {}),
    };
    const chat: ChatDescription = {
      id: message.chat.id,
      type: message.chat.type,
      isForum: message.chat.isForum,
      ...(message.chat.title ? { title: message.chat.title } : {}),
    };
    this.store.setMeta("target", target);
    this.store.setMeta("chat", chat);
  }

  private services(): SessionServices {
    const settings = settingsOf(this.env);
    const target = (this.store.getMeta("target") as ChatTarget | undefined) ?? { chatId: 0 };
    const chat = (this.store.getMeta("chat") as ChatDescription | undefined) ?? {
      id: target.chatId,
      type: target.chatId > 0 ? "private" : "group",
      isForum: target.threadId !== undefined,
    };
    const services: SessionServices = {
      env: this.env,
      settings,
      store: this.store,
      db: database(this.env),
      telegram: this.telegram(),
      registry: tools,
      configs: this.configs,
      chatKey: sessionKeyOf(target),
      target,
      chat,
      now: Date.now,
      turnDeadline: this.alarmStartedAt + TURN_WALL_MS,
      systemPrompt: (config, toolNames) =>
        buildSystemPrompt({
          botName: settings.botName,
          ...(config.systemPrompt ? { chatPrompt: config.systemPrompt } : {}),
          chat: {
            type: chat.type,
            ...(chat.title ? { title: chat.title } : {}),
            isForumTopic: target.threadId !== undefined,
          },
          toolNames,
          now: new Date(),
          timezone: settings.defaultTimezone,
        }),
      beginRun: () => {
        let token: string | undefined;
        const run: ActiveRun = {
          token: () => (token ??= newRunToken()),
          issuedToken: () => token,
          controller: new AbortController(),
          execute: async () => ({ isError: true, content: "Error: the tools are not ready yet." }),
        };
        this.activeRun = run;
        return run;
      },
      endRun: (run) => {
        if (this.activeRun === run) this.activeRun = undefined;
      },
      tasksChanged: async (chatId, threadId) => {
        const other = { chatId, ...(threadId !== undefined ? { threadId } : {}) };
        if (sessionKeyOf(other) === sessionKeyOf(target)) await this.refreshNextTask();
        else
          await this.env.CHAT_SESSION.get(this.env.CHAT_SESSION.idFromName(sessionKeyOf(other))).tasksChanged(
            chatId,
            threadId,
          );
      },
    };
    return services;
  }

  private telegram(): TelegramClient {
    const settings = settingsOf(this.env);
    this.telegramClient ??= new TelegramClient({
      botToken: settings.botToken ?? "",
      apiBaseUrl: settings.telegramApiBaseUrl,
    });
    return this.telegramClient;
  }

  private async queueDueTasks(): Promise<void> {
    const next = this.store.getMeta("nextTaskAt");
    if (typeof next !== "number" || next > Date.now()) return;
    await enqueueDueTasks(this.services());
    await this.refreshNextTask();
  }

  private async refreshNextTask(): Promise<void> {
    const target = this.store.getMeta("target") as ChatTarget | undefined;
    if (!target) return;
    const next = await nextDueAt(database(this.env), target.chatId, target.threadId);
    if (next === undefined) this.store.deleteMeta("nextTaskAt");
    else this.store.setMeta("nextTaskAt", next);
  }

  /**
   * Makes sure the alarm fires no later than `time`. Without reading the alarm first: when this instance does not know
   * it, setting it is as good (a later alarm it replaces is set again by the next drain), and each storage event
   * costs a commit.
   */
  private async wakeBy(time: number): Promise<void> {
    if (this.alarmAt !== undefined && this.alarmAt !== null && this.alarmAt <= time) return;
    this.alarmAt = time;
    await this.ctx.storage.setAlarm(time);
  }

  /** The alarm goes to the earliest of: pending inbox work (now), the next due task, the next usage flush. */
  private async scheduleNextWake(): Promise<void> {
    const now = Date.now();
    const nextTask = this.store.getMeta("nextTaskAt");
    const oldestUsage = this.store.oldestBufferedUsage();
    const candidates = [
      ...(typeof nextTask === "number" ? [nextTask] : []),
      ...(oldestUsage !== undefined
        ? [Math.max(oldestUsage + settingsOf(this.env).usageFlushMs, this.usageRetryAt)]
        : []),
    ];
    const at = this.store.hasPending() ? now : candidates.length > 0 ? Math.max(Math.min(...candidates), now) : null;
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
    this.alarmAt = at;
  }

  private pruneOccasionally(): void {
    const now = Date.now();
    const last = this.store.getMeta("prunedAt");
    if (typeof last === "number" && now - last < PRUNE_INTERVAL_MS) return;
    this.store.pruneFinished(now);
    this.store.setMeta("prunedAt", now);
  }
}
