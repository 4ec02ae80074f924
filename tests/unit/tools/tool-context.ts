import { env } from "cloudflare:workers";
import { PaidCalls, type PaidPolicy } from "../../../src/budget/paid-calls.ts";
import { settingsOf } from "../../../src/config/loaded-settings.ts";
import { database } from "../../../src/db/database.ts";
import { MemoryRepository } from "../../../src/memory/memory-repository.ts";
import { readableSkill } from "../../../src/skills/skill-store.ts";
import { TaskRepository } from "../../../src/tasks/task-repository.ts";
import { type ToolContext, TurnTrust } from "../../../src/tools/context.ts";

export const NOW = Date.parse("2026-11-22T10:00:00Z");

/** A tool context for one chat, with the deployment's paid-call policy unless a test gives its own. */
export function toolContextFor(
  chatId: number,
  options: { policy?: Partial<PaidPolicy>; overrides?: Partial<ToolContext> } = {},
): ToolContext & { paid: PaidCalls } {
  const settings = settingsOf(env);
  const paid = new PaidCalls(
    { prices: settings.paid.prices, caps: settings.paid.caps, dailyCostUsd: undefined, ...options.policy },
    { day: "2026-11-22", tokens: 0, costUsd: 0, noticeSent: false },
  );
  return {
    chatId,
    threadId: undefined,
    userId: 42,
    isAdminChat: false,
    isAdminUser: false,
    trust: new TurnTrust(),
    settings: settingsOf(env),
    memories: new MemoryRepository(database(env)),
    tasks: new TaskRepository(database(env)),
    readSkill: (name) => readableSkill(database(env), chatId, name),
    timezone: "Europe/Berlin",
    now: () => NOW,
    isChatAllowed: () => true,
    sendMessage: async () => undefined,
    sendPhoto: async () => undefined,
    storeGenerated: async () => undefined,
    tasksChanged: async () => undefined,
    history: { keyword: () => [], byIds: () => [], nearest: undefined },
    ...options.overrides,
    paid,
  };
}
