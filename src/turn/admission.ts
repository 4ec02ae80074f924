import { budgetNotice, exhaustedLimit, spendOn } from "../budget/budget.ts";
import { type DailySpend, spendSlot } from "../budget/spend-slot.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import type { StoredConfig } from "../config/config-store.ts";
import { dayKey, startOfNextDay } from "../config/zones.ts";
import { bestEffort } from "../lib/best-effort.ts";
import type { ChatContext } from "./chat-context.ts";
import { usersWithoutFiles } from "./incoming-files.ts";
import { sendersAreAdmins } from "./senders.ts";
import type { TurnOutcome, TurnRequest } from "./turn-request.ts";
import { configProblemNoticeAtSlot } from "./turn-slots.ts";

type RefusalReason = Extract<TurnOutcome, { ok: "skipped" }>["reason"];

/** Whether a turn may make a model call at all, decided in one place before anything is paid for. */
export type Admission =
  | { kind: "admitted"; spend: DailySpend }
  | {
      kind: "refused";
      reason: RefusalReason;
      /** What the person is told, if anything. */
      notice: string | undefined;
      /** Today's spend to store (the budget notice is sent once a day). */
      spend?: DailySpend;
    };

/** A chat whose config is invalid is told at most this often. */
const CONFIG_NOTICE_INTERVAL_MS = 60 * 60 * 1000;

/** What a refused task or `/agent` run is recorded as (a refused chat message is kept, not failed). */
const REFUSED: Record<RefusalReason, string> = {
  "config invalid": "the chat's stored config is invalid",
  disabled: "the bot is disabled in this chat",
  "not allowed": "/agent is for admins in this chat",
  budget: "over the daily budget; not run",
};

/**
 * A disabled chat gets no model call of any kind; an agent runs shell commands in the chat's container, so by
 * default only the bot's admins may start one; a chat past its daily budget waits for the next day.
 */
export function admit(
  ctx: Pick<ChatContext, "access" | "stores">,
  request: TurnRequest,
  chatConfig: { effective: EffectiveConfig; stored: StoredConfig },
  now: number,
): Admission {
  const { effective: config, stored } = chatConfig;
  // An invalid stored config fails closed: it may have said `enabled: false`, a budget or a narrower tool list.
  if (stored.state === "invalid") {
    const last = ctx.stores.meta.get(configProblemNoticeAtSlot);
    const notice =
      last !== undefined && now - last < CONFIG_NOTICE_INTERVAL_MS
        ? undefined
        : `⚠️ This chat's settings are invalid (${stored.problem}), so I won't answer until the bot's owner fixes them (the console, or the admin API's config routes).`;
    return { kind: "refused", reason: "config invalid", notice };
  }
  if (!config.enabled) {
    const notice = request.kind === "agent" ? "⏸ The bot is disabled in this chat." : undefined;
    return { kind: "refused", reason: "disabled", notice };
  }
  if (request.kind === "agent" && config.agentAccess === "admins" && !sendersAreAdmins(ctx.access, request.senders)) {
    return { kind: "refused", reason: "not allowed", notice: "Only the bot's admins can run /agent in this chat." };
  }
  const spend = spendOn(dayKey(now, config.timezone), ctx.stores.meta.get(spendSlot));
  const exhausted = exhaustedLimit(spend, config.budget);
  if (exhausted === undefined) return { kind: "admitted", spend };
  const hours = (startOfNextDay(now, config.timezone) - now) / 3_600_000;
  return {
    kind: "refused",
    reason: "budget",
    notice: spend.noticeSent ? undefined : budgetNotice(exhausted, config.timezone, hours),
    spend: { ...spend, noticeSent: true },
  };
}

/**
 * A refused turn: the person is told why (where it applies), a chat's messages are kept so the conversation goes on
 * when it may again, and the inbox rows end (a task or `/agent` run as failed, with the reason).
 */
export async function refuse(
  ctx: Pick<ChatContext, "stores" | "outbox" | "target" | "configProblems" | "chat">,
  request: TurnRequest,
  refusal: Extract<Admission, { kind: "refused" }>,
  now: number,
): Promise<TurnOutcome> {
  const { notice, spend } = refusal;
  if (notice !== undefined) {
    await ctx.outbox.notify(ctx.target, notice);
    if (refusal.reason === "config invalid") {
      ctx.stores.meta.set(configProblemNoticeAtSlot, now);
      await bestEffort("reporting an invalid config", () => ctx.configProblems.report(ctx.chat.id, notice, now));
    }
  }
  ctx.stores.atomically(() => {
    if (spend) ctx.stores.meta.set(spendSlot, spend);
    if (request.kind === "chat") ctx.stores.history.append(usersWithoutFiles(request.input), now);
    ctx.stores.inbox.finish(request.inboxIds, now, request.kind === "chat" ? undefined : REFUSED[refusal.reason]);
  });
  return { ok: "skipped", reason: refusal.reason };
}
