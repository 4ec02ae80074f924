import { DurableObject } from "cloudflare:workers";
import { AccessStore } from "../access/access-store.ts";
import { ChatAccess } from "../access/chat-access.ts";
import { pairingAccessOf } from "../access/pairing-access.ts";
import { pressButton } from "../commands/button-press.ts";
import { isQuestionButton, tapQuestion } from "../commands/question-press.ts";
import { compactIfDue } from "../compaction/compaction.ts";
import { keepHistory } from "../compaction/history-upkeep.ts";
import { consolidateIfDue } from "../compaction/memory-consolidation.ts";
import { summaryFailureSlot, summarySlot } from "../compaction/summary-slots.ts";
import { ConfigProblemsStore } from "../config/config-problems.ts";
import { CachedChatConfig, ChatConfigStore, type StoredConfig } from "../config/config-store.ts";
import { loadSettings, settingsOf } from "../config/loaded-settings.ts";
import { PLAN_LIMITS } from "../config/plan-limits.ts";
import { RetiredModelsStore } from "../config/retired-models.ts";
import { database } from "../db/database.ts";
import type { Env } from "../env.ts";
import type { HelperReport } from "../helpers/helper-job.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { SubrequestMeter } from "../lib/subrequest-meter.ts";
import { generatedMediaReader, generatedMediaStore, ingestServicesOf } from "../media/services.ts";
import { personFactsNoneSlot } from "../memory/memory-slots.ts";
import type { ToolOutcome } from "../protocol/run-payload.ts";
import type { Outbox } from "../reply/outbox.ts";
import { skillDirectory } from "../skills/skill-directory.ts";
import { CachedSkills } from "../skills/skill-store.ts";
import { ChatStores } from "../store/chat-stores.ts";
import type { WrittenRow } from "../store/person-history.ts";
import { TaskRepository } from "../tasks/task-repository.ts";
import { TelegramClient } from "../telegram/client.ts";
import type { ChatDescription, ChatTarget, GuestQuery, IncomingMessage } from "../telegram/incoming-message.ts";
import type { PressAnswer } from "../telegram/press-answer.ts";
import type { ButtonPress, GenerationStop, WidgetTap } from "../telegram/update.ts";
import { tools } from "../tools/index.ts";
import { RunSlot } from "../turn/active-run.ts";
import { deliverHandedOver, handedOverLeft } from "../turn/answer-handover.ts";
import type { Burst } from "../turn/burst.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { stopHelpers } from "../turn/helpers.ts";
import { type InboxEntry, type InboxItem, inboxCodec } from "../turn/inbox-entries.ts";
import { expireQuestions, nextQuestionExpiry } from "../turn/questions.ts";
import { ReplyTail } from "../turn/reply-tail.ts";
import { enqueueDueTasks } from "../turn/scheduled-task.ts";
import { keepWidgetData, tapWidget } from "../turn/widgets.ts";
import { adapterSourcesOf, mcpOpenerOf, semanticIndexOf, servedModelSourcesOf, speakerSourceOf } from "./bindings.ts";
import { directoryRowWritten, dueDirectoryRow, queueDirectoryRow, rememberChat } from "./chat-directory-entry.ts";
import { chatKeyOf, chatStub } from "./chat-key.ts";
import { chatOutbox, type OutboxState, outboxStateOf } from "./chat-outbox.ts";
import { chatSlot, nextTaskAtSlot, prunedAtSlot, targetSlot } from "./chat-slots.ts";
import { D1Flush } from "./d1-flush.ts";
import { helperLauncherOf } from "./helper-launcher.ts";
import { answerItems, burstFor, isPlainMessage } from "./inbox-batch.ts";
import { countBindings, type MeteredObject, meterInvocations } from "./metered-invocations.ts";
import { mediaBucket } from "./optional-bindings.ts";
import { WakeSchedule } from "./wake-schedule.ts";

/** One drain works at most this long (an alarm's limit is 15 minutes), then hands over to a fresh alarm. */
const ALARM_BUDGET_MS = 10 * 60 * 1000;
/** A turn is stopped this long after its drain began: the platform ends an alarm at 15 minutes and retries it. */
const TURN_WALL_MS = 13 * 60 * 1000;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** How long the first photo of an album waits for the album's other updates. */
const ALBUM_WAIT_MS = 1_500;
/** Inbox rows taken at once; a batch this full may leave older rows waiting. */
const BATCH_SIZE = 100;

export type Access = "allowed" | "stranger";

/**
 * One chat (or forum topic): a durable inbox, the conversation, and the turn runner. The webhook only enqueues; the
 * drain starts as work arrives, with the alarm as its net, which the platform retries if the object dies mid-turn.
 */
export class ChatSession extends DurableObject<Env> implements MeteredObject {
  // Public for tests, which reach them through runInDurableObject; callers go through the methods below.
  readonly stores: ChatStores<InboxEntry>;
  /** This invocation's subrequests against the plan's limits (see metered-invocations.ts). */
  readonly subrequests: SubrequestMeter;
  /** The drain and the alarm behind it; tests wait for `schedule.drain` to settle. */
  readonly schedule: WakeSchedule;
  readonly d1Writes: D1Flush;
  private readonly configs: CachedChatConfig;
  private readonly skills: CachedSkills;
  /** The running turn, if any: /stop, the Stop button and remote tool calls find it here. */
  private readonly runs = new RunSlot();
  /** Answers still being delivered while the drain goes on (see ReplyTail); the drain ends after them. */
  private readonly replies = new ReplyTail();
  /** The summary pass running after a drain, if any: a new message stops it (it runs again after that turn). */
  private compaction: AbortController | undefined;
  /** While a batch is answered: the way in for messages sent meanwhile, to its last turn (see Burst). */
  private burst: Burst | undefined;
  /** Chats approved and admins stored by pairing, read (cached) before each batch of work. */
  private access: ChatAccess;
  private telegramClient: TelegramClient | undefined;
  private outboxOfChat: Outbox | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // A long turn would pass the plan's limits in one invocation: the object calls itself for a fresh one first.
    this.subrequests = new SubrequestMeter(PLAN_LIMITS[settingsOf(env).plan], {
      renew: () => env.CHAT_SESSION.get(ctx.id).freshInvocation(),
    });
    countBindings(env);
    this.stores = new ChatStores(ctx.storage, inboxCodec);
    this.access = new ChatAccess(settingsOf(env), { chats: {}, admins: {} });
    this.configs = new CachedChatConfig(new ChatConfigStore(env.CONFIG, tools.names));
    this.skills = new CachedSkills({ db: () => database(env), directory: () => skillDirectory(env.DB) });
    this.d1Writes = new D1Flush(this.stores.usage, {
      source: ctx.id.toString(),
      flushMs: () => settingsOf(env).usageFlushMs,
      db: () => database(env),
      directory: {
        due: () => dueDirectoryRow(this.stores),
        written: (row) => directoryRowWritten(this.stores, row),
      },
    });
    this.schedule = new WakeSchedule({
      storage: ctx.storage,
      work: {
        hasPending: () => this.stores.inbox.hasPending(),
        nextTaskAt: () => this.stores.meta.get(nextTaskAtSlot),
        nextD1FlushAt: () => this.d1Writes.nextFlushAt(),
        nextOutboxAt: () => this.stores.outbox.nextTryAt(),
        nextExpiryAt: () => nextQuestionExpiry(this),
      },
      atOnce: { drain: () => this.drain(), keepAlive: (running) => ctx.waitUntil(running) },
      budgetMs: ALARM_BUDGET_MS,
    });
    void ctx.blockConcurrencyWhile(async () => {
      const { fresh } = await this.stores.migrate();
      if (fresh) {
        // A private chat shows only facts its own turns wrote (src/memory/visibility.ts): a new one has none, so its
        // first turn need not read D1 for them (a turn that writes one clears this). Nor has it finished inbox rows
        // to prune for the next hour.
        this.stores.meta.set(personFactsNoneSlot, true);
        this.stores.meta.set(prunedAtSlot, Date.now());
      }
      // Before any call: the console's settings, which every later read of settingsOf(env) sees (refreshed per drain).
      this.access = new ChatAccess(await loadSettings(env), { chats: {}, admins: {} });
    });
  }

  /** Durably queues one update. Answers once the row is written; a redelivered update is a no-op. */
  async enqueue(message: IncomingMessage, access: Access): Promise<"queued" | "duplicate"> {
    const now = Date.now();
    const entry = access === "allowed" ? { kind: "message" as const, message } : { kind: "stranger" as const, message };
    // Telegram posts an album as one update per photo, within moments: the first waits for the rest, so it is one turn.
    const within = message.mediaGroupId === undefined ? 0 : ALBUM_WAIT_MS;
    // No await between here and `workArrived`: a drain that starts at once takes this row first, so it is written
    // as taken (one statement fewer per turn).
    const key = `update:${message.updateId}`;
    const id = this.stores.inbox.enqueue(key, entry, now, this.schedule.drainsAtOnce(within));
    if (id === undefined) return "duplicate";
    if (access === "allowed") this.warm(message.chat.id);
    if (access === "allowed" && this.joinsBatch(id, message)) return "queued";
    // /stop must reach a running turn now, not after it; the turn then says it stopped (and so do the sender's
    // helpers, in their reports).
    const running = this.runs.current;
    if (access === "allowed" && message.command?.name === "stop" && running) {
      this.stores.inbox.finish([id], now);
      const byAdmin = await this.isAdmin(message.from?.id);
      await stopHelpers(this.context(), { userId: message.from?.id, isAdmin: byAdmin });
      // Like the Stop button: whoever asked, or an admin; another member's /stop leaves the turn running.
      if (running.mayBeStoppedBy(message.from?.id, byAdmin)) running.stop("stopped");
      else this.tellLater(message, "Only the person who asked, or an admin, can stop this.");
      return "queued";
    }
    // Whatever waits now, no newer message may overtake it.
    this.burst?.close();
    if (access === "allowed") this.compaction?.abort();
    await this.schedule.workArrived(within);
    return "queued";
  }

  /**
   * Starts the reads a turn begins with (the chat's config from KV, its skills from D1) while the message is stored and
   * the drain starts, instead of one after the other once the turn runs: it finds them done or under way. Each is
   * cached for a minute, so a chat that talks on reads nothing here.
   */
  private warm(chatId: number): void {
    void this.configs.get(chatId).catch(() => undefined);
    void this.skills.forChat(chatId).catch(() => undefined);
  }

  /**
   * A plain message sent while the batch's last turn has shown nothing joins that turn (the person's "hi" and their
   * question get one answer), unless something else was queued before it. Album photos wait for their album instead.
   */
  private joinsBatch(id: number, message: IncomingMessage): boolean {
    if (message.mediaGroupId !== undefined || !isPlainMessage(message)) return false;
    return this.burst?.join({ inboxId: id, message }) ?? false;
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

  /**
   * Queues a guest query its person made in another chat (the webhook checked that the bot knows them): answered by
   * the drain with this chat's settings and budget, and kept only until then.
   */
  async enqueueGuest(query: GuestQuery): Promise<"queued" | "duplicate"> {
    const now = Date.now();
    const entry = { kind: "guest" as const, query };
    const id = this.stores.inbox.enqueue(`guest:${query.updateId}`, entry, now, this.schedule.drainsAtOnce());
    if (id === undefined) return "duplicate";
    this.burst?.close();
    // A person who never wrote to the bot privately: their chat is theirs (its id is their user id).
    if (this.stores.meta.get(targetSlot) === undefined) this.stores.meta.set(targetSlot, { chatId: query.from.id });
    await this.schedule.workArrived(0);
    return "queued";
  }

  /** The admin API changed this chat's config: use it from the next turn, without waiting for KV to catch up. */
  async configChanged(chatId: number, stored: StoredConfig): Promise<void> {
    this.configs.remember(chatId, stored);
  }

  /** The admin API (or the console) changed this chat's skills: read them again for the next turn. */
  async skillsChanged(): Promise<void> {
    this.skills.forget();
  }

  /** Called when this chat's scheduled tasks change (from any chat's tool call): re-reads the next due time. */
  async tasksChanged(chatId: number, threadId?: number): Promise<void> {
    if (this.stores.meta.get(targetSlot) === undefined) {
      this.stores.meta.set(targetSlot, threadId === undefined ? { chatId } : { chatId, threadId });
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

  /**
   * A background helper's report, from its own object: queued in the inbox (once: its key is the helper's) and
   * delivered in order with the chat's messages.
   */
  async helperFinished(report: HelperReport): Promise<void> {
    const entry = { kind: "helper" as const, report };
    const taken = this.schedule.drainsAtOnce();
    if (this.stores.inbox.enqueue(`helper:${report.id}`, entry, Date.now(), taken) !== undefined) {
      this.burst?.close();
    }
    await this.schedule.workArrived(0);
  }

  /** A press of one of this chat's buttons; returns what the presser is told. */
  async pressButton(press: ButtonPress, byAdmin: boolean): Promise<PressAnswer> {
    // A confirm button acts on who may do what now, not on what the last batch read.
    this.access = new ChatAccess(settingsOf(this.env), await new AccessStore(this.env.CONFIG).read());
    if (!isQuestionButton(press.data)) return pressButton(this.context(), press, byAdmin);
    const tap = await tapQuestion(this.context(), press, byAdmin);
    if (tap.choice) await this.enqueueChoice(`choice:${press.queryId}`, tap.choice);
    return tap.answer;
  }

  /**
   * A tap in one of this chat's widgets: answered from the stored state at once (the answer is the widget's new
   * state, kept in Telegram as its chat data after the answer); a tap that needs the model is queued as the person's
   * message.
   */
  async widgetQuery(tap: WidgetTap): Promise<string> {
    const result = tapWidget(this.context(), tap);
    if (result.choice) await this.enqueueChoice(`widget:${tap.queryId}`, result.choice);
    if (result.chatData !== undefined) {
      this.ctx.waitUntil(keepWidgetData(this.context(), tap.messageId, result.chatData));
    }
    return result.answer;
  }

  /** A person's choice (a question's button) queued as their message: once per tap, in order with the rest. */
  private async enqueueChoice(key: string, message: IncomingMessage): Promise<void> {
    const entry = { kind: "message" as const, message };
    const id = this.stores.inbox.enqueue(key, entry, Date.now(), this.schedule.drainsAtOnce());
    if (id === undefined) return;
    this.burst?.close();
    this.compaction?.abort();
    await this.schedule.workArrived(0);
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

  /** What waits in this chat's outbox for Telegram (the admin API's chat view, the console). */
  async outboxState(): Promise<OutboxState> {
    return outboxStateOf(this.stores);
  }

  /** What the person of this private chat wrote (live and archived), for the admin API's export of their data. */
  async personRows(): Promise<WrittenRow[]> {
    return this.stores.person.written();
  }

  /**
   * Erases this chat's conversation (live, archived, its search index and summary) for the admin API's delete of a
   * person's data; returns the files' keys of what they wrote, for the caller to delete, and how many rows went.
   */
  async erasePerson(): Promise<{ rows: number; files: string[] }> {
    const files = this.stores.person.written().flatMap((row) => row.files);
    const rows = this.stores.atomically(() => {
      this.stores.history.clear();
      this.stores.meta.delete(summarySlot);
      this.stores.meta.delete(summaryFailureSlot);
      return this.stores.person.eraseArchived();
    });
    return { rows, files };
  }

  override async alarm(): Promise<void> {
    await this.schedule.runAlarm(() => this.drain());
  }

  /**
   * Nothing: being called is the point. The object calls itself here when its invocation runs low on subrequests,
   * and the platform tops its limits up for the event, so a long turn goes on within them (see SubrequestMeter).
   */
  async freshInvocation(): Promise<void> {}

  private async drain(): Promise<void> {
    const deadline = this.schedule.drainDeadline;
    await loadSettings(this.env);
    // What Telegram could not take before goes first, if its time has come (newer answers queue behind it).
    await bestEffort("the outbox", () => this.outbox().flush());
    // An answer whose delivery the object's end cut off goes next (no drain of this instance leaves one behind).
    if (handedOverLeft(this.stores)) await bestEffort("an answer cut off", () => deliverHandedOver(this.context()));
    await bestEffort("expiring questions", () => expireQuestions(this.context()));
    await this.queueDueTasks();
    try {
      for (;;) {
        const items = this.stores.inbox.takePending(BATCH_SIZE);
        if (items.length === 0) {
          // An answer is still on its way: a message sent meanwhile starts its turn now, not after it and the upkeep.
          if (!this.replies.busy || Date.now() > deadline) break;
          await Promise.race([this.replies.settled, this.schedule.arrival()]);
          continue;
        }
        // A full batch may leave older rows waiting: nothing newer joins it then.
        this.burst = items.length < BATCH_SIZE ? burstFor(items) : undefined;
        try {
          await this.process(items, this.burst);
        } finally {
          // Rows that joined but no turn took (it never ran) are still pending: the next batch has them.
          this.burst?.close();
          this.burst = undefined;
        }
        if (Date.now() > deadline) break;
        await this.queueDueTasks();
      }
    } finally {
      // The last answers are still on their way (the next batch started while they went): the drain ends after them.
      await this.replies.settled;
    }
    // After the answers are out: nobody waits for a summary (a message that arrives meanwhile stops it).
    const compaction = new AbortController();
    this.compaction = compaction;
    await bestEffort("compaction", () => compactIfDue(this.context(), compaction.signal));
    this.compaction = undefined;
    await bestEffort("history upkeep", () => keepHistory(this.context()));
    await bestEffort("memory consolidation", () => consolidateIfDue(this.context()));
    this.pruneOccasionally();
    await this.d1Writes.flushIfDue(Date.now());
  }

  /** One batch from the inbox: who may do what is read afresh, the chat's identity kept, then each item answered. */
  private async process(items: InboxItem[], burst: Burst | undefined): Promise<void> {
    this.access = new ChatAccess(settingsOf(this.env), await new AccessStore(this.env.CONFIG).read());
    for (const item of items) {
      if (item.kind === "message" || item.kind === "stranger") rememberChat(this.stores, item.message);
    }
    const lastMessage = items.findLast((item) => item.kind === "message");
    try {
      await answerItems(this.context(), items, burst);
    } finally {
      // The console's directory row, after the answer: it goes with the chat's next D1 flush (D1Flush), not the turn.
      if (lastMessage?.kind === "message") queueDirectoryRow(this.stores, lastMessage.message, Date.now());
    }
  }

  /** What a turn or a command of this batch works with. */
  private context(): ChatContext {
    const settings = settingsOf(this.env);
    const target: ChatTarget = this.stores.meta.get(targetSlot) ?? { chatId: 0 };
    const chat: ChatDescription = this.stores.meta.get(chatSlot) ?? {
      id: target.chatId,
      type: target.chatId > 0 ? "private" : "group",
      isForum: target.threadId !== undefined,
    };
    const telegram = this.telegram();
    const bucket = mediaBucket(this.env);
    return {
      settings,
      stores: this.stores,
      db: database(this.env),
      telegram,
      outbox: this.outbox(),
      registry: tools,
      ingest: ingestServicesOf(bucket, settings, telegram.api),
      configs: this.configs,
      skills: this.skills,
      adapters: adapterSourcesOf(this.env, settings),
      mcp: mcpOpenerOf(this.env, settings),
      semanticIndex: semanticIndexOf(this.env, settings, chatKeyOf(target)),
      storeGenerated: generatedMediaStore(bucket),
      speaker: speakerSourceOf(this.env, settings),
      configProblems: new ConfigProblemsStore(this.env.CONFIG),
      retiredModels: new RetiredModelsStore(this.env.CONFIG),
      served: servedModelSourcesOf(this.env, settings),
      pairing: pairingAccessOf(this.env.CONFIG, telegram, Date.now),
      chatKey: chatKeyOf(target),
      target,
      chat,
      access: this.access,
      runs: this.runs,
      replies: this.replies,
      tasks: { changed: (chatId, threadId) => this.taskChanged(target, { chatId, threadId }) },
      helpers: helperLauncherOf(this.env),
      turnDeadline: this.schedule.drainStartedAt + TURN_WALL_MS,
      subrequests: this.subrequests,
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

  private outbox(): Outbox {
    this.outboxOfChat ??= chatOutbox({
      stores: this.stores,
      telegram: this.telegram(),
      settings: settingsOf(this.env),
      kv: this.env.CONFIG,
      keptPhoto: generatedMediaReader(mediaBucket(this.env)),
      chatKey: () => chatKeyOf(this.stores.meta.get(targetSlot) ?? { chatId: 0 }),
      // A drain sets the alarm as it ends; a message queued outside one (a confirmed button's send) sets it now.
      replan: async () => {
        if (!this.schedule.isDraining) await this.schedule.replan();
      },
    });
    return this.outboxOfChat;
  }

  private async queueDueTasks(): Promise<void> {
    const next = this.stores.meta.get(nextTaskAtSlot);
    if (next === undefined || next > Date.now()) return;
    await enqueueDueTasks(this.context());
    await this.refreshNextTask();
  }

  private async refreshNextTask(): Promise<void> {
    const target = this.stores.meta.get(targetSlot);
    if (!target) return;
    const next = await new TaskRepository(database(this.env)).nextDueAt(target.chatId, target.threadId);
    if (next === undefined) this.stores.meta.delete(nextTaskAtSlot);
    else this.stores.meta.set(nextTaskAtSlot, next);
  }

  private pruneOccasionally(): void {
    const now = Date.now();
    const last = this.stores.meta.get(prunedAtSlot);
    if (last !== undefined && now - last < PRUNE_INTERVAL_MS) return;
    this.stores.inbox.pruneFinished(now);
    this.stores.meta.set(prunedAtSlot, now);
  }
}

// Every method entered from outside the object is an invocation, counted (see metered-invocations.ts).
meterInvocations(ChatSession.prototype);
