import { DurableObject } from "cloudflare:workers";
import { type AccessRecord, AccessStore, isAdminIn } from "../access/access-store.ts";
import { CachedChatConfig, ChatConfigStore, type StoredConfig } from "../config/config-store.ts";
import { redactSecrets } from "../config/secrets.ts";
import { includes, settingsOf } from "../config/settings.ts";
import { recordChatActivity } from "../db/chat-directory.ts";
import type { Env } from "../env.ts";
import type { ToolOutcome } from "../protocol/run-payload.ts";
import { enqueueDueTasks, runTask } from "../tasks/task-runner.ts";
import { nextDueAt } from "../tasks/task-store.ts";
import { isBotCommand } from "../telegram/bot-commands.ts";
import { TelegramClient } from "../telegram/client.ts";
import type { ButtonPress, ChatDescription, ChatTarget, IncomingMessage } from "../telegram/update.ts";
import { database } from "../tools/context.ts";
import { tools } from "../tools/index.ts";
import { ActiveRun } from "../turn/active-run.ts";
import { handleCommand } from "../turn/commands.ts";
import { compactIfDue } from "../turn/compaction.ts";
import { chooseModel, isModelButton, modelChoiceOf, modelMenu } from "../turn/model-menu.ts";
import { pairText } from "../turn/pairing.ts";
import { runTurn } from "../turn/run-turn.ts";
import { buildSystemPrompt } from "../turn/system-prompt.ts";
import type { TurnServices } from "../turn/turn-services.ts";
import { userMessageOf } from "../turn/user-message.ts";
import { chatKeyOf, chatStub } from "./chat-key.ts";
import { ChatStore, type InboxItem } from "./chat-store.ts";
import { UsageFlush } from "./usage-flush.ts";
import { WakeSchedule } from "./wake-schedule.ts";

/** A message that failed this many times (the object died mid-turn each time) is given up, and the chat told. */
const MAX_ATTEMPTS = 3;
/** One alarm works at most this long (of the platform's 15 minutes), then hands over to a fresh alarm. */
const ALARM_BUDGET_MS = 10 * 60 * 1000;
/** A turn is stopped this long after its alarm began: the platform ends an alarm at 15 minutes and retries it. */
const TURN_WALL_MS = 13 * 60 * 1000;
const STRANGER_NOTICE_INTERVAL_MS = 60 * 60 * 1000;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** The console's "last activity" is this fresh at worst; a chat that writes often costs one D1 write per interval. */
const DIRECTORY_INTERVAL_MS = 5 * 60 * 1000;

export type Access = "allowed" | "stranger";

/**
 * One chat (or forum topic): a durable inbox, the conversation, and the turn runner. The webhook only enqueues;
 * all work happens in the alarm, which the platform retries if the object dies mid-turn.
 */
export class ChatSession extends DurableObject<Env> {
  // Public for tests, which reach them through runInDurableObject; callers go through the methods below.
  readonly store: ChatStore;
  /** The alarm and the drain it runs; tests wait for `schedule.drain` to settle. */
  readonly schedule: WakeSchedule;
  readonly usage: UsageFlush;
  private readonly configs: CachedChatConfig;
  private activeRun: ActiveRun | undefined;
  /** The summary pass running after a drain, if any: a new message stops it (it runs again after that turn). */
  private compaction: AbortController | undefined;
  /** Chats approved and admins stored by pairing, read (cached) before each batch of work. */
  private access: AccessRecord = { chats: {}, admins: {} };
  private telegramClient: TelegramClient | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ChatStore(ctx.storage);
    this.configs = new CachedChatConfig(new ChatConfigStore(env.CONFIG, tools.names));
    this.usage = new UsageFlush(this.store, {
      source: ctx.id.toString(),
      flushMs: settingsOf(env).usageFlushMs,
      db: () => database(env),
    });
    this.schedule = new WakeSchedule(ctx.storage, {
      hasPending: () => this.store.hasPending(),
      nextTaskAt: () => this.store.getMeta("nextTaskAt"),
      nextUsageFlushAt: () => this.usage.nextFlushAt(),
    });
    void ctx.blockConcurrencyWhile(() => this.store.migrate());
  }

  /** Durably queues one update. Answers once the row is written; a redelivered update is a no-op. */
  async enqueue(message: IncomingMessage, access: Access): Promise<"queued" | "duplicate"> {
    const now = Date.now();
    const entry = access === "allowed" ? { kind: "message" as const, message } : { kind: "stranger" as const, message };
    const id = this.store.enqueue(`update:${message.updateId}`, entry, now);
    if (id === undefined) return "duplicate";
    // /stop must reach a running turn now, not after it; the turn then says it stopped.
    if (access === "allowed" && message.command?.name === "stop" && this.activeRun) {
      this.activeRun.stop("stopped");
      this.store.finish([id], now);
      return "queued";
    }
    if (access === "allowed") this.compaction?.abort();
    await this.schedule.workArrived();
    return "queued";
  }

  /** The admin API changed this chat's config: use it from the next turn, without waiting for KV to catch up. */
  async configChanged(chatId: number, stored: StoredConfig): Promise<void> {
    this.configs.remember(chatId, stored);
  }

  /** Called when this chat's scheduled tasks change (from any chat's tool call): re-reads the next due time. */
  async tasksChanged(chatId: number, threadId?: number): Promise<void> {
    if (this.store.getMeta("target") === undefined) {
      this.store.setMeta("target", threadId === undefined ? { chatId } : { chatId, threadId });
    }
    await this.refreshNextTask();
    await this.schedule.replan();
  }

  /**
   * A tool call from a remote agent runner during this chat's running turn. The Worker has verified the run's signed
   * token; here it must name the run that is running: without one, or for an earlier run, nothing runs.
   */
  async runRemoteTool(runId: string, name: string, argumentsText: string): Promise<ToolOutcome | "unauthorized"> {
    const run = this.activeRun;
    if (!run?.accepts(runId)) return "unauthorized";
    return run.execute(name, argumentsText);
  }

  /** A press of one of this chat's buttons; returns what the presser is told. */
  async pressButton(press: ButtonPress, byAdmin: boolean): Promise<string> {
    if (isModelButton(press.data)) return this.pressModelButton(press, byAdmin);
    const stop = /^stop:(.+)$/.exec(press.data);
    if (!stop) return "That button is not known any more.";
    const run = this.activeRun;
    if (!run?.accepts(stop[1]!)) return "That has already finished.";
    // Whoever started the turn may stop it; in a group, nobody else but an admin.
    if (!byAdmin && run.startedBy !== undefined && run.startedBy !== press.userId) {
      return "Only the person who asked, or an admin, can stop this.";
    }
    run.stop("stopped");
    return "Stopping…";
  }

  /** A `/model` choice: an admin's press stores it in the chat's config and the menu shows the new state. */
  private async pressModelButton(press: ButtonPress, byAdmin: boolean): Promise<string> {
    if (!byAdmin) return "Only the bot's admins can change the model.";
    const settings = settingsOf(this.env);
    const choice = modelChoiceOf(press.data, settings);
    if (!choice) return "That model is not offered any more. Send /model again.";
    await chooseModel(this.configs, press.chat.id, choice);
    const target: ChatTarget =
      press.threadId === undefined ? { chatId: press.chat.id } : { chatId: press.chat.id, threadId: press.threadId };
    const menu = await modelMenu({ configs: this.configs, settings, chatId: press.chat.id, withButtons: true });
    await this.telegram()
      .editMenu(target, press.messageId, menu.text, menu.keyboard)
      .catch((error: unknown) =>
        console.warn("updating the /model menu failed", error instanceof Error ? error.message : error),
      );
    return `Now ${choice.provider} · ${choice.model}, from the next message.`;
  }

  override async alarm(): Promise<void> {
    await this.schedule.runAlarm(() => this.drain());
  }

  private async drain(): Promise<void> {
    const deadline = this.schedule.drainStartedAt + ALARM_BUDGET_MS;
    await this.queueDueTasks();
    for (;;) {
      const items = this.store.takePending();
      if (items.length === 0) break;
      await this.process(items);
      if (Date.now() > deadline) break;
      await this.queueDueTasks();
    }
    // After the answers are out: nobody waits for a summary (a message that arrives meanwhile stops it).
    const compaction = new AbortController();
    this.compaction = compaction;
    await compactIfDue(this.services(), compaction.signal)
      .catch((error: unknown) =>
        console.warn("compaction failed:", redactSecrets(error instanceof Error ? error.message : String(error))),
      )
      .finally(() => {
        this.compaction = undefined;
      });
    this.pruneOccasionally();
    await this.usage.flushIfDue(Date.now());
  }

  /** Plain messages waiting together are answered as one turn; commands, tasks and strangers one at a time. */
  private async process(items: InboxItem[]): Promise<void> {
    const now = Date.now();
    this.access = await new AccessStore(this.env.CONFIG).read();
    for (const item of items) {
      if (item.kind === "message" || item.kind === "stranger") this.remember(item.message);
    }
    const lastMessage = items.findLast((item) => item.kind === "message");
    if (lastMessage?.kind === "message") await this.recordInDirectory(lastMessage.message, now);
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
          messageId: last.messageId,
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
      if (item.kind === "message" && !(item.message.command && isBotCommand(item.message.command.name))) {
        batch.ids.push(item.id);
        batch.messages.push(item.message);
        continue;
      }
      await flush();
      await this.contained(services, [item.id], () => this.processOne(services, item));
    }
    await flush();
  }

  private async processOne(services: TurnServices, item: InboxItem): Promise<void> {
    switch (item.kind) {
      case "stranger":
        return this.answerStranger(services, item.id, item.message);
      case "task":
        return runTask(services, item.id, item.task);
      case "message":
        if (!(await handleCommand(services, item.message, item.id))) this.store.finish([item.id], Date.now());
        return;
    }
  }

  /**
   * Runs one item's work so that its failure (Telegram refusing a reply, D1 down while a task starts) fails that item
   * alone: it is recorded and the chat told, and the items after it go on.
   */
  private async contained(services: TurnServices, ids: number[], work: () => Promise<unknown>): Promise<void> {
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

  /**
   * A chat that is not allowed costs no model call: `/pair` gets a pairing code, anything else at most one notice an
   * hour saying how to ask for access (and, when ALLOWED_CHAT_IDS is in use, the chat's id to add there).
   */
  private async answerStranger(services: TurnServices, inboxId: number, message: IncomingMessage): Promise<void> {
    const now = Date.now();
    const warn = (error: unknown) =>
      console.warn("answering a stranger failed", error instanceof Error ? error.message : error);
    if (message.command?.name === "pair") {
      await services.telegram.sendMarkdown(services.target, await pairText(services, message)).catch(warn);
      this.store.finish([inboxId], now);
      return;
    }
    const last = this.store.getMeta("strangerNoticeAt");
    if (last === undefined || now - last >= STRANGER_NOTICE_INTERVAL_MS) {
      this.store.setMeta("strangerNoticeAt", now);
      const listed = services.settings.allowedChats.kind === "some" && services.settings.allowedChats.ids.size > 0;
      const text = listed
        ? `This bot is private. Send /pair to ask for access (this chat's id is \`${services.chat.id}\`).`
        : "This bot is private. Send /pair to ask for access.";
      await services.telegram.sendMarkdown(services.target, text).catch(warn);
    }
    this.store.finish([inboxId], now);
  }

  private remember(message: IncomingMessage): void {
    this.store.setMeta(
      "target",
      message.threadId === undefined
        ? { chatId: message.chat.id }
        : { chatId: message.chat.id, threadId: message.threadId },
    );
    this.store.setMeta("chat", message.chat);
  }

  /** Keeps the chat's row in the directory the console lists; a failure there never holds up the answer. */
  private async recordInDirectory(message: IncomingMessage, now: number): Promise<void> {
    const name = message.chat.title ?? (message.chat.type === "private" ? (message.from?.name ?? "") : "");
    const last = this.store.getMeta("directoryWritten");
    if (last && last.name === name && now - last.at < DIRECTORY_INTERVAL_MS) return;
    try {
      await recordChatActivity(database(this.env), {
        chatId: message.chat.id,
        type: message.chat.type,
        title: name === "" ? null : name,
        lastActivityAt: now,
      });
      this.store.setMeta("directoryWritten", { at: now, name });
    } catch (error) {
      console.warn("recording the chat in the directory failed", error instanceof Error ? error.message : error);
    }
  }

  private services(): TurnServices {
    const settings = settingsOf(this.env);
    const target: ChatTarget = this.store.getMeta("target") ?? { chatId: 0 };
    const chat: ChatDescription = this.store.getMeta("chat") ?? {
      id: target.chatId,
      type: target.chatId > 0 ? "private" : "group",
      isForum: target.threadId !== undefined,
    };
    return {
      env: this.env,
      settings,
      store: this.store,
      db: database(this.env),
      telegram: this.telegram(),
      registry: tools,
      configs: this.configs,
      chatKey: chatKeyOf(target),
      target,
      chat,
      now: Date.now,
      turnDeadline: this.schedule.drainStartedAt + TURN_WALL_MS,
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
          timezone: config.timezone,
        }),
      beginRun: (startedBy) => {
        this.activeRun = new ActiveRun(startedBy);
        return this.activeRun;
      },
      endRun: (run) => {
        if (this.activeRun === run) this.activeRun = undefined;
      },
      isAdminUser: (userId) => isAdminIn(settings, this.access, userId ?? undefined),
      isChatAllowed: (chatId) => includes(settings.allowedChats, chatId) || String(chatId) in this.access.chats,
      tasksChanged: async (chatId, threadId) => {
        const other: ChatTarget = threadId === undefined ? { chatId } : { chatId, threadId };
        if (chatKeyOf(other) === chatKeyOf(target)) await this.refreshNextTask();
        else await chatStub(this.env, other).tasksChanged(chatId, threadId);
      },
    };
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
    if (next === undefined || next > Date.now()) return;
    await enqueueDueTasks(this.services());
    await this.refreshNextTask();
  }

  private async refreshNextTask(): Promise<void> {
    const target = this.store.getMeta("target");
    if (!target) return;
    const next = await nextDueAt(database(this.env), target.chatId, target.threadId);
    if (next === undefined) this.store.deleteMeta("nextTaskAt");
    else this.store.setMeta("nextTaskAt", next);
  }

  private pruneOccasionally(): void {
    const now = Date.now();
    const last = this.store.getMeta("prunedAt");
    if (last !== undefined && now - last < PRUNE_INTERVAL_MS) return;
    this.store.pruneFinished(now);
    this.store.setMeta("prunedAt", now);
  }
}
