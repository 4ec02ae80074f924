import { includes } from "../config/settings.ts";
import type { ToolContext, TurnTrust } from "../tools/context.ts";
import type { TurnServices } from "./turn-services.ts";

/** Who is asking and where, for the tools of one turn. */
export function toolContext(
  services: TurnServices,
  turn: { userId: number | undefined; trust: TurnTrust; timezone: string },
): ToolContext {
  const { userId, trust } = turn;
  return {
    chatId: services.chat.id,
    threadId: services.target.threadId,
    userId,
    isAdminChat: includes(services.settings.adminChatIds, services.chat.id),
    isAdminUser: services.isAdminUser(userId),
    trust,
    env: services.env,
    db: services.db,
    timezone: turn.timezone,
    now: services.now,
    isChatAllowed: services.isChatAllowed,
    sendMessage: async (target, text) => {
      await services.telegram.sendMarkdown(target, text);
    },
    tasksChanged: services.tasksChanged,
  };
}
