import type { PaidCallGate } from "../budget/paid-calls.ts";
import { markMemoryChanged } from "../compaction/memory-consolidation.ts";
import { MemoryRepository } from "../memory/memory-repository.ts";
import { readableSkill } from "../skills/skill-store.ts";
import { TaskRepository } from "../tasks/task-repository.ts";
import type { ChatHistory } from "../tools/chat-history.ts";
import type { HelperSpawner, ToolContext, TurnTrust } from "../tools/context.ts";
import type { ChatContext } from "./chat-context.ts";
import { askToConfirm } from "./pending-actions.ts";
import { askQuestion } from "./questions.ts";
import { actingUser, sendersAreAdmins } from "./senders.ts";
import { showWidget } from "./widgets.ts";

/** Who is asking and where, for the tools of one turn. */
export function toolContext(
  ctx: ChatContext,
  turn: {
    /** The people the turn answers: it acts with the least privilege among them. */
    senders: readonly number[];
    trust: TurnTrust;
    timezone: string;
    paid: PaidCallGate;
    /** Whether a call this turn may not make alone can be put to the person (not when running a confirmed one). */
    canAsk?: boolean;
    /** How the `spawn` tool starts a background helper (not offered where a helper may not start another). */
    helpers?: HelperSpawner;
  },
): ToolContext {
  const { senders, trust } = turn;
  return {
    chatId: ctx.chat.id,
    threadId: ctx.target.threadId,
    userId: actingUser(ctx.access, senders),
    isAdminChat: ctx.access.isAdminChat(ctx.chat.id),
    isAdminUser: sendersAreAdmins(ctx.access, senders),
    trust,
    settings: ctx.settings,
    memories: new MemoryRepository(ctx.db),
    audience: { chatId: ctx.chat.id, isPrivate: ctx.chat.type === "private", speakers: senders },
    memoryChanged: (person) => markMemoryChanged(ctx.stores, person),
    tasks: new TaskRepository(ctx.db),
    readSkill: (name) => readableSkill(ctx.db, ctx.chat.id, name),
    timezone: turn.timezone,
    now: ctx.now,
    isChatAllowed: (chatId) => ctx.access.isChatAllowed(chatId),
    sendMessage: async (target, text) => {
      // Through this chat's outbox, behind what waits there: another chat's message too (an outage keeps it; only
      // that chat's refusal ends it, and is the tool's failure).
      const own = target.chatId === ctx.target.chatId && target.threadId === ctx.target.threadId;
      const delivery = own
        ? await ctx.outbox.postMarkdown("answer", target, text)
        : await ctx.outbox.postElsewhere(target, text);
      if (delivery === "refused") throw new Error("Telegram refused the message");
    },
    sendPhoto: async (photo) => {
      // Through the outbox: an outage keeps it (read back from its key, or described) rather than losing it.
      if ((await ctx.outbox.postPhoto("answer", ctx.target, photo)) === "refused") {
        throw new Error("Telegram refused the photo");
      }
    },
    storeGenerated: ctx.storeGenerated,
    paid: turn.paid,
    ...(turn.canAsk === false
      ? {}
      : {
          confirm: (action) => askToConfirm(ctx, { ...action, askers: senders }),
          ask: (question) => askQuestion(ctx, { ...question, askers: senders }),
          showWidget: (widget) => showWidget(ctx, widget, senders),
        }),
    tasksChanged: (chatId, threadId) => ctx.tasks.changed(chatId, threadId),
    ...(turn.helpers ? { helpers: turn.helpers } : {}),
    history: chatHistoryOf(ctx),
  };
}

/** The chat's own history for search: its object's full-text index, and its namespace of the vector index if bound. */
function chatHistoryOf(ctx: ChatContext): ChatHistory {
  const search = ctx.stores.historySearch;
  const semantic = ctx.semanticIndex;
  return {
    keyword: (query) => search.keyword(query),
    byIds: (ids) => search.byIds(ids),
    nearest: semantic ? (text, topK) => semantic.nearest(text, topK) : undefined,
  };
}
