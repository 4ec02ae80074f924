import type { PaidCallGate } from "../budget/paid-calls.ts";
import { mediaBucket } from "../media/services.ts";
import { storeMedia } from "../media/store.ts";
import type { ChatHistory } from "../tools/chat-history.ts";
import type { ToolContext, TurnTrust } from "../tools/context.ts";
import { semanticIndexOf } from "../tools/semantic-index.ts";
import type { ChatContext } from "./chat-context.ts";

/** Who is asking and where, for the tools of one turn. */
export function toolContext(
  ctx: ChatContext,
  turn: { userId: number | undefined; trust: TurnTrust; timezone: string; paid: PaidCallGate },
): ToolContext {
  const { userId, trust } = turn;
  return {
    chatId: ctx.chat.id,
    threadId: ctx.target.threadId,
    userId,
    isAdminChat: ctx.access.isAdminChat(ctx.chat.id),
    isAdminUser: ctx.access.isAdmin(userId),
    trust,
    env: ctx.env,
    db: ctx.db,
    timezone: turn.timezone,
    now: ctx.now,
    isChatAllowed: (chatId) => ctx.access.isChatAllowed(chatId),
    sendMessage: async (target, text) => {
      await ctx.telegram.sendMarkdown(target, text);
    },
    sendPhoto: async (photo) => {
      await ctx.telegram.sendPhoto(ctx.target, photo);
    },
    storeGenerated: async (bytes, mediaType) => {
      const bucket = mediaBucket(ctx.env);
      if (!bucket) return undefined;
      const key = `generated/${crypto.randomUUID()}`;
      await storeMedia(bucket, key, bytes, { mediaType });
      return key;
    },
    paid: turn.paid,
    tasksChanged: (chatId, threadId) => ctx.tasks.changed(chatId, threadId),
    history: chatHistoryOf(ctx),
  };
}

/** The chat's own history for search: its object's full-text index, and its namespace of the vector index if bound. */
function chatHistoryOf(ctx: ChatContext): ChatHistory {
  const search = ctx.stores.historySearch;
  const semantic = semanticIndexOf(ctx.env, ctx.settings, ctx.chatKey);
  return {
    keyword: (query) => search.keyword(query),
    byIds: (ids) => search.byIds(ids),
    nearest: semantic ? (text, topK) => semantic.nearest(text, topK) : undefined,
  };
}
