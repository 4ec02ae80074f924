import type { PaidCallGate } from "../budget/paid-calls.ts";
import { mediaBucket } from "../media/services.ts";
import { storeMedia } from "../media/store.ts";
import type { HelperSpawner, ToolContext, TurnTrust } from "../tools/context.ts";
import type { ChatContext } from "./chat-context.ts";

/** Who is asking and where, for the tools of one turn. */
export function toolContext(
  ctx: ChatContext,
  turn: { userId: number | undefined; trust: TurnTrust; timezone: string; paid: PaidCallGate; helpers?: HelperSpawner },
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
    ...(turn.helpers ? { helpers: turn.helpers } : {}),
  };
}
