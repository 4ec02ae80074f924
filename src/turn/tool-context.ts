import { includes } from "../config/settings.ts";
import type { ToolContext } from "../tools/context.ts";
import type { TurnServices } from "./turn-services.ts";

/** Who is asking and where, for the tools of one turn. */
export function toolContext(services: TurnServices, userId: number | undefined): ToolContext {
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
