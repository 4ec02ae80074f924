import { DurableObject } from "cloudflare:workers";
import { AccessStore } from "../access/access-store.ts";
import { ChatAccess } from "../access/chat-access.ts";
import { handleCommand } from "../commands/commands.ts";
import { answerConfirmation } from "../commands/confirm-action.ts";
import { chooseModel, isModelButton, modelChoiceOf, modelMenu } from "../commands/model-menu.ts";
import { pairText } from "../commands/pairing.ts";
import { compactIfDue } from "../compaction/compaction.ts";
import { CachedChatConfig, ChatConfigStore, type StoredConfig } from "../config/config-store.ts";
import { settingsOf } from "../config/settings.ts";
import { recordChatActivity } from "../db/chat-directory.ts";
import type { Env } from "../env.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { assertNever, errorText } from "../lib/errors.ts";
import { redactSecrets } from "../lib/redact.ts";
import { ingestServicesOf } from "../media/services.ts";
import type { ToolOutcome } from "../protocol/run-payload.ts";
import { ChatStores } from "../store/chat-stores.ts";
import type { InboxItem } from "../store/inbox-store.ts";
import { nextDueAt } from "../tasks/task-store.ts";
import { isBotCommand } from "../telegram/bot-commands.ts";
import { TelegramClient } from "../telegram/client.ts";
import type { ChatDescription, ChatTarget, IncomingMessage } from "../telegram/incoming-message.ts";
import type { ButtonPress, GenerationStop } from "../telegram/update.ts";
import { database } from "../tools/context.ts";
import { tools } from "../tools/index.ts";
import { RunSlot } from "../turn/active-run.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { userMessagesOf } from "../turn/incoming-files.ts";
import { PENDING_BUTTON } from "../turn/pending-actions.ts";
import { runTurn } from "../turn/run-turn.ts";
import { enqueueDueTasks, runTask } from "../turn/scheduled-task.ts";
import { agentContainersOf } from "./agent-containers.ts";
import { chatKeyOf, chatStub } from "./chat-key.ts";
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
/** How long the first photo of an album waits for the album's other updates. */
const ALBUM_WAIT_MS = 1_500;

export type Access = "allowed" | "stranger";

/**
 * One chat (or forum topic): a durable inbox, the conversation, and the turn runner. The webhook only enqueues;
 * all work happens in the alarm, which the platform retries if the object dies mid-turn.
 */
export class ChatSession extends DurableObject<Env> {
  // Public for tests, which reach them through runInDurableObject; callers go through the methods below.
  readonly stores: ChatStores;
  /** The alarm and the drain it runs; tests wait for `schedule.drain` to settle. */
  readonly schedule: WakeSchedule;
  readonly usage: UsageFlush;
  private readonly configs: CachedChatConfig;
  /** The running turn, if any: /stop, the Stop button and remote tool calls find it here. */
  private readonly runs = new RunSlot();
  /** The summary pass running after a drain, if any: a new message stops it (it runs again after that turn). */
  private compaction: AbortController | undefined;
  /** Chats approved and admins stored by pairing, read (cached) before each batch of work. */
  private access: ChatAccess;
  private telegramClient: TelegramClient | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.stores = new ChatStores(ctx.storage);
    this.access = new ChatAccess(settingsOf(env), { chats: {}, admins: {} });
    this.configs = new CachedChatConfig(new ChatConfigStore(env.CONFIG, tools.names));
    this.usage = new UsageFlush(this.stores.usage, {
      source: ctx.id.toString(),
      flushMs: settingsOf(env).usageFlushMs,
      db: () => database(env),
    });
    this.schedule = new WakeSchedule(ctx.storage, {
      hasPending: () => this.stores.inbox.hasPending(),
      nextTaskAt: () => this.stores.meta.get("nextTaskAt"),
      nextUsageFlushAt: () => this.usage.nextFlushAt(),
    });
    void ctx.blockConcurrencyWhile(() => this.stores.migrate());
  }

  /** Durably queues one update. Answers once the row is written; a redelivered update is a no-op. */
  async enqueue(message: IncomingMessage, access: Access): Promise<"queued" | "duplicate"> {
    const now = Date.now();
    const entry = access === "allowed" ? { kind: "message" as const, message } : { kind: "stranger" as const, message };
    const id = this.stores.inbox.enqueue(`update:${message.updateId}`, entry, now);
    if (id === undefined) return "duplicate";
    // /stop must reach a running turn now, not after it; the turn then says it stopped.
    const running = this.runs.current;
    if (access === "allowed" && message.command?.name === "stop" && running) {
      this.stores.inbox.finish([id], now);
      // Like the Stop button: whoever asked, or an admin; another member's /stop leaves the turn running.
      if (running.mayBeStoppedBy(message.from?.id, await this.isAdmin(message.from?.id))) running.stop("stopped");
      else this.tellLater(message, "Only the person who asked, or an admin, can stop this.");
      return "queued";
    }
    if (access === "allowed") this.compaction?.abort();
    // Telegram posts an album as one update per photo, within moments: wait for the rest, so it is one turn.
    await this.schedule.workArrived(message.mediaGroupId === undefined ? 0 : ALBUM_WAIT_MS);
    return "queued";
  }

  private async isAdmin(userId: number | undefined): Promise<boolean> {
    return new ChatAccess(settingsOf(this.env), await new AccessStore(this.env.CONFIG).read()).isAdmin(userId);
  }

  /** A short answer sent after the webhook has its reply (the object stays up for it). */
  private tellLater(message: IncomingMessage, text: string): void {
    const target: ChatTarget =
      message.threadId === undefined
        ? { chatId: message.chat.id }
        : { chatId: message.chat.id, threadId: message.threadId };
    this.ctx.waitUntil(bestEffort("answering a /stop", () => this.telegram().sendPlain(target, text)));
  }

  /** The admin API changed this chat's config: use it from the next turn, without waiting for KV to catch up. */
  async configChanged(chatId: number, stored: StoredConfig): Promise<void> {
    this.configs.remember(chatId, stored);
  }

  /** Called when this chat's scheduled tasks change (from any chat's tool call): re-reads the next due time. */
  async tasksChanged(chatId: number, threadId?: number): Promise<void> {
    if (this.stores.meta.get("target") === undefined) {
      this.stores.meta.set("target", threadId === undefined ? { chatId } : { chatId, threadId });
    }
    await this.refreshNextTask();
    await this.schedule.replan();
  }

  /**
   * A tool call from a remote agent runner during this chat's running turn. The Worker has verified the run's signed
   * token; here it must name the run that is running: without one, or for an earlier run, nothing runs.
   */
  async runRemoteTool(runId: string, name: string, argumentsText: string): Promise<ToolOutcome | "unauthorized"> {
    const run = this.runs.current;
    if (!run?.accepts(runId)) return "unauthorized";
    return run.execute(name, argumentsText);
  }

  /** A press of one of this chat's buttons; returns what the presser is told. */
  async pressButton(press: ButtonPress, byAdmin: boolean): Promise<string> {
    if (isModelButton(press.data)) return this.pressModelButton(press, byAdmin);
    if (PENDING_BUTTON.test(press.data)) {
      this.access = new ChatAccess(settingsOf(this.env), await new AccessStore(this.env.CONFIG).read());
      return answerConfirmation(this.context(), press, byAdmin);
    }
    const stop = /^stop:(.+)$/.exec(press.data);
    if (!stop) return "That button is not known any more.";
    const run = this.runs.current;
    if (!run?.accepts(stop[1]!)) return "That has already finished.";
    // Whoever started the turn may stop it; in a group, nobody else but an admin.
    if (!run.mayBeStoppedBy(press.userId, byAdmin)) {
      return "Only the person who asked, or an admin, can stop this.";
    }
    run.stop("stopped");
    return "Stopping…";
  }

  /**
   * A press of a rich draft's stop control: the turn whose draft it is stops, as for /stop and the Stop button, when
   * the presser asked for it or is an admin. A draft of a turn already over is a no-op.
   */
  async stopGeneration(stop: GenerationStop, byAdmin: boolean): Promise<"stopping" | "not running" | "not allowed"> {
    const run = this.runs.current;
    if (!run?.ownsDraft(stop.draftId)) return "not running";
    if (!run.mayBeStoppedBy(stop.userId, byAdmin)) return "not allowed";
    run.stop("stopped");
    return "stopping";
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
      .catch((error: unknown) => console.warn("updating the /model menu failed", errorText(error)));
    return `Now ${choice.provider} · ${choice.model}, from the next message.`;
  }

  override async alarm(): Promise<void> {
    await this.schedule.runAlarm(() => this.drain());
  }

  private async drain(): Promise<void> {
    const deadline = this.schedule.drainStartedAt + ALARM_BUDGET_MS;
    await this.queueDueTasks();
    for (;;) {
      const items = this.stores.inbox.takePending();
      if (items.length === 0) break;
      await this.process(items);
      if (Date.now() > deadline) break;
      await this.queueDueTasks();
    }
    // After the answers are out: nobody waits for a summary (a message that arrives meanwhile stops it).
    const compaction = new AbortController();
    this.compaction = compaction;
    await bestEffort("compaction", () => compactIfDue(this.context(), compaction.signal));
    this.compaction = undefined;
    this.pruneOccasionally();
    await this.usage.flushIfDue(Date.now());
  }

  /** Plain messages waiting together are answered as one turn; commands, tasks and strangers one at a time. */
  private async process(items: InboxItem[]): Promise<void> {
    const now = Date.now();
    this.access = new ChatAccess(settingsOf(this.env), await new AccessStore(this.env.CONFIG).read());
    for (const item of items) {
      if (item.kind === "message" || item.kind === "stranger") this.remember(item.message);
    }
    const lastMessage = items.findLast((item) => item.kind === "message");
    if (lastMessage?.kind === "message") await this.recordInDirectory(lastMessage.message, now);
    const ctx = this.context();
    let batch: { ids: number[]; messages: IncomingMessage[] } = { ids: [], messages: [] };
    const flush = async () => {
      if (batch.messages.length === 0) return;
      const { ids, messages } = batch;
      batch = { ids: [], messages: [] };
      const last = messages.at(-1)!;
      await this.contained(ctx, ids, async () =>
        runTurn(ctx, {
          kind: "chat",
          users: await userMessagesOf(ctx, messages),
          inboxIds: ids,
          messageId: last.messageId,
          senders: [...new Set(messages.flatMap((message) => (message.from ? [message.from.id] : [])))],
          ...(last.chat.type === "private" ? {} : { replyToMessageId: last.messageId }),
        }),
      );
    };

    for (const item of items) {
      if (item.attempts > MAX_ATTEMPTS) {
        await flush();
        this.stores.inbox.finish([item.id], now, `gave up after ${MAX_ATTEMPTS} attempts`);
        await bestEffort("telling the chat a message was given up", () =>
          ctx.telegram.sendPlain(
            ctx.target,
            "⚠️ I could not handle a message after several attempts and gave up on it.",
          ),
        );
        continue;
      }
      if (item.kind === "message" && !(item.message.command && isBotCommand(item.message.command.name))) {
        batch.ids.push(item.id);
        batch.messages.push(item.message);
        continue;
      }
      await flush();
      await this.contained(ctx, [item.id], () => this.processOne(ctx, item));
    }
    await flush();
  }

  private async processOne(ctx: ChatContext, item: InboxItem): Promise<void> {
    switch (item.kind) {
      case "stranger":
        return this.answerStranger(ctx, item.id, item.message);
      case "task":
        return runTask(ctx, item.id, item.task);
      case "message":
        if (!(await handleCommand(ctx, item.message, item.id))) this.stores.inbox.finish([item.id], Date.now());
        return;
      case "unreadable":
        console.warn(`chat ${ctx.chat.id}: inbox row ${item.id} is unreadable (${item.problem}); dropped`);
        this.stores.inbox.finish([item.id], Date.now(), `unreadable: ${item.problem}`);
        return;
      default:
        return assertNever(item, "inbox item");
    }
  }

  /**
   * Runs one item's work so that its failure (Telegram refusing a reply, D1 down while a task starts) fails that item
   * alone: it is recorded and the chat told, and the items after it go on.
   */
  private async contained(ctx: ChatContext, ids: number[], work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      const detail = redactSecrets(errorText(error));
      console.error(`chat ${ctx.chat.id}: handling a message failed: ${detail}`);
      this.stores.inbox.finish(ids, Date.now(), `internal: ${detail.slice(0, 300)}`);
      await bestEffort("telling the chat a message failed", () =>
        ctx.telegram.sendPlain(ctx.target, "⚠️ Something went wrong handling that message."),
      );
    }
  }

  /**
   * A chat that is not allowed costs no model call: `/pair` gets a pairing code, anything else at most one notice an
   * hour saying how to ask for access (and, when ALLOWED_CHAT_IDS is in use, the chat's id to add there).
   */
  private async answerStranger(ctx: ChatContext, inboxId: number, message: IncomingMessage): Promise<void> {
    const now = Date.now();
    if (message.command?.name === "pair") {
      const text = await pairText(ctx, message);
      await bestEffort("answering a stranger", () => ctx.telegram.sendMarkdown(ctx.target, text));
      this.stores.inbox.finish([inboxId], now);
      return;
    }
    const last = this.stores.meta.get("strangerNoticeAt");
    if (last === undefined || now - last >= STRANGER_NOTICE_INTERVAL_MS) {
      this.stores.meta.set("strangerNoticeAt", now);
      const listed = ctx.settings.allowedChats.kind === "some" && ctx.settings.allowedChats.ids.size > 0;
      const text = listed
        ? `This bot is private. Send /pair to ask for access (this chat's id is \`${ctx.chat.id}\`).`
        : "This bot is private. Send /pair to ask for access.";
      await bestEffort("answering a stranger", () => ctx.telegram.sendMarkdown(ctx.target, text));
    }
    this.stores.inbox.finish([inboxId], now);
  }

  private remember(message: IncomingMessage): void {
    this.stores.meta.set(
      "target",
      message.threadId === undefined
        ? { chatId: message.chat.id }
        : { chatId: message.chat.id, threadId: message.threadId },
    );
    this.stores.meta.set("chat", message.chat);
  }

  /** Keeps the chat's row in the directory the console lists; a failure there never holds up the answer. */
  private async recordInDirectory(message: IncomingMessage, now: number): Promise<void> {
    const name = message.chat.title ?? (message.chat.type === "private" ? (message.from?.name ?? "") : "");
    const last = this.stores.meta.get("directoryWritten");
    if (last && last.name === name && now - last.at < DIRECTORY_INTERVAL_MS) return;
    try {
      await recordChatActivity(database(this.env), {
        chatId: message.chat.id,
        type: message.chat.type,
        title: name === "" ? null : name,
        lastActivityAt: now,
      });
      this.stores.meta.set("directoryWritten", { at: now, name });
    } catch (error) {
      console.warn("recording the chat in the directory failed", errorText(error));
    }
  }

  /** What a turn or a command of this batch works with. */
  private context(): ChatContext {
    const settings = settingsOf(this.env);
    const target: ChatTarget = this.stores.meta.get("target") ?? { chatId: 0 };
    const chat: ChatDescription = this.stores.meta.get("chat") ?? {
      id: target.chatId,
      type: target.chatId > 0 ? "private" : "group",
      isForum: target.threadId !== undefined,
    };
    return {
      env: this.env,
      settings,
      stores: this.stores,
      db: database(this.env),
      telegram: this.telegram(),
      registry: tools,
      ingest: ingestServicesOf(this.env, settings, this.telegram().api),
      configs: this.configs,
      agentContainers: agentContainersOf(this.env),
      chatKey: chatKeyOf(target),
      target,
      chat,
      access: this.access,
      runs: this.runs,
      tasks: { changed: (chatId, threadId) => this.taskChanged(target, { chatId, threadId }) },
      turnDeadline: this.schedule.drainStartedAt + TURN_WALL_MS,
      now: Date.now,
    };
  }

  /** A task of this chat, or of another one (an admin chat planted it there), changed: its chat's alarm follows. */
  private async taskChanged(own: ChatTarget, changed: { chatId: number; threadId: number | undefined }): Promise<void> {
    const other: ChatTarget =
      changed.threadId === undefined
        ? { chatId: changed.chatId }
        : { chatId: changed.chatId, threadId: changed.threadId };
    if (chatKeyOf(other) === chatKeyOf(own)) await this.refreshNextTask();
    else await chatStub(this.env, other).tasksChanged(other.chatId, other.threadId);
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
    const next = this.stores.meta.get("nextTaskAt");
    if (next === undefined || next > Date.now()) return;
    await enqueueDueTasks(this.context());
    await this.refreshNextTask();
  }

  private async refreshNextTask(): Promise<void> {
    const target = this.stores.meta.get("target");
    if (!target) return;
    const next = await nextDueAt(database(this.env), target.chatId, target.threadId);
    if (next === undefined) this.stores.meta.delete("nextTaskAt");
    else this.stores.meta.set("nextTaskAt", next);
  }

  private pruneOccasionally(): void {
    const now = Date.now();
    const last = this.stores.meta.get("prunedAt");
    if (last !== undefined && now - last < PRUNE_INTERVAL_MS) return;
    this.stores.inbox.pruneFinished(now);
    this.stores.meta.set("prunedAt", now);
  }
}
