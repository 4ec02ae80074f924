import { spendOn } from "../budget/budget.ts";
import type { PaidCalls } from "../budget/paid-calls.ts";
import { spendSlot } from "../budget/spend-slot.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import { dayKey } from "../config/zones.ts";
import type { UsageRecord } from "../db/usage.ts";
import { helperSlice, holdOf, released, withHold } from "../helpers/helper-budget.ts";
import type { HelperJob, HelperReport } from "../helpers/helper-job.ts";
import { helperCountSlot, helpersSlot, type RunningHelper } from "../helpers/helper-slots.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { errorText } from "../lib/errors.ts";
import type { HelperRequest, HelperSpawner, TurnTrust } from "../tools/context.ts";
import type { ChatContext } from "./chat-context.ts";
import { actingUser, sendersAreAdmins } from "./senders.ts";
import type { Tally } from "./tally.ts";

/**
 * Background helpers, as the chat sees them. Where a helper runs, and why: each one is a Durable Object of its own
 * (`HelperSession`), which runs the helper's turn on its own alarm and hands its report back to the chat's inbox.
 * A chat object runs one turn at a time within an alarm of at most 15 minutes; a helper run inside it would either
 * hold the chat's next messages back or share that alarm's wall with the chat's own turns (and die with it). On its
 * own object a helper gets its own 15 minutes and the platform's retries, the chat goes on answering meanwhile, and
 * its report arrives as an inbox item, delivered in order between the chat's turns. What it may spend is a slice of
 * what the chat had left, held in the chat's day's spend until its report says what it used (helper-budget.ts).
 */

/** A helper that has not reported this long after its deadline is counted as lost (its hold stays spent). */
const LOST_AFTER_MS = 20 * 60 * 1000;

/** What the running turn has used so far, for the share of what is left that a helper gets. */
interface SpawningTurn {
  /** The people the turn answers: the helper acts for the least privileged of them. */
  senders: readonly number[];
  trust: TurnTrust;
  config: EffectiveConfig;
  tally: Tally;
  paid: PaidCalls;
}

/** The `spawn` tool's way to start a helper for this chat, from the running turn. */
export function helperSpawner(ctx: ChatContext, turn: SpawningTurn): HelperSpawner {
  return { spawn: (request) => spawnHelper(ctx, turn, request) };
}

async function spawnHelper(
  ctx: ChatContext,
  turn: SpawningTurn,
  request: HelperRequest,
): Promise<{ started: true; text: string } | { started: false; reason: string }> {
  const { settings, stores } = ctx;
  const now = ctx.now();
  const running = liveHelpers(ctx);
  const max = settings.helpers.maxRunning;
  if (running.length >= max) {
    return { started: false, reason: `${running.length} helpers are running already, the most this chat may have` };
  }
  const day = dayKey(now, turn.config.timezone);
  const spend = spendOn(day, stores.meta.get(spendSlot));
  const granted = helperSlice({
    budget: turn.config.budget,
    caps: turn.config.paidCaps,
    // The stored spend holds the other helpers' slices; the running turn's own use is not recorded yet.
    spent: {
      tokens: spend.tokens + turn.tally.usage.inputTokens + turn.tally.usage.outputTokens,
      costUsd: spend.costUsd + turn.tally.costUsd + turn.paid.costUsd,
      units: sumUnits(spend.units ?? {}, turn.paid.units),
    },
    share: settings.helpers.budgetShare,
  });
  if (granted.kind === "refused") return { started: false, reason: granted.reason };

  const number = (stores.meta.get(helperCountSlot) ?? 0) + 1;
  const label = (request.label ?? request.task).replace(/\s+/g, " ").slice(0, 60);
  const timeLimitMs = Math.min(settings.helpers.timeoutMs, (request.timeLimitSeconds ?? Infinity) * 1000);
  const source = turn.trust.untrustedSource;
  const startedBy = actingUser(ctx.access, turn.senders);
  const job: HelperJob = {
    id: ctx.helpers.newId(),
    number,
    label,
    task: request.task,
    chat: ctx.chat,
    target: ctx.target,
    ...(startedBy === undefined ? {} : { startedBy }),
    isAdminUser: sendersAreAdmins(ctx.access, turn.senders),
    ...(source === undefined ? {} : { untrustedSource: source.slice(0, 200) }),
    ...(turn.trust.privateSource === undefined ? {} : { privateSource: turn.trust.privateSource.slice(0, 200) }),
    startedAt: now,
    timeLimitMs,
    slice: granted.slice,
  };
  const entry: RunningHelper = {
    id: job.id,
    number,
    label,
    ...(startedBy === undefined ? {} : { startedBy }),
    startedAt: now,
    deadlineAt: now + timeLimitMs,
    hold: holdOf(day, granted.slice, turn.config.paidCaps),
  };
  stores.atomically(() => {
    stores.meta.set(helperCountSlot, number);
    stores.meta.set(helpersSlot, [...running, entry]);
    stores.meta.set(spendSlot, withHold(spend, entry.hold));
  });
  try {
    await ctx.helpers.start(job);
  } catch (error) {
    console.error(`chat ${ctx.chat.id}: helper #${number} could not be started`, error);
    forget(ctx, entry, { tokens: 0, costUsd: 0, units: {} });
    return { started: false, reason: "its object could not be reached" };
  }
  const minutes = minutesOf(timeLimitMs);
  await bestEffort("announcing a helper", async () => {
    const messageId = await ctx.telegram.sendMenu(
      ctx.target,
      `🧩 Helper #${number} started: ${label} (up to ${minutes}). Its report will follow here.`,
      // A button's data is at most 64 bytes: the helper's number, not its object's id.
      [[{ text: "⏹ Stop", data: `hstop:${number}` }]],
    );
    const helpers = stores.meta.get(helpersSlot) ?? [];
    stores.meta.set(
      helpersSlot,
      helpers.map((helper) => (helper.id === job.id ? { ...helper, statusMessageId: messageId } : helper)),
    );
  });
  return {
    started: true,
    text:
      `Helper #${number} is working on it in the background (for up to ${minutes}). Its report will be posted in ` +
      "this chat by itself when it is done: tell the user so, and do not wait for it or do its work yourself.",
  };
}

/**
 * A helper's report, taken from the inbox in its turn: the person reads it, the chat's history keeps it (so the model
 * knows it later), and what the helper used replaces its hold in the day's spend and joins the chat's usage.
 */
export async function deliverHelperReport(ctx: ChatContext, inboxId: number, report: HelperReport): Promise<void> {
  const { stores } = ctx;
  const entry = (stores.meta.get(helpersSlot) ?? []).find((helper) => helper.id === report.id);
  const text = reportText(report);
  if (entry?.statusMessageId !== undefined) {
    const messageId = entry.statusMessageId;
    await bestEffort("closing a helper's status line", () =>
      ctx.telegram.editMenu(ctx.target, messageId, `🧩 Helper #${report.number} ended: ${report.label}`, []),
    );
  }
  // Its accounting is done whether Telegram takes the message or not: the hold must not outlive the helper. A report
  // Telegram cannot take now waits in the outbox.
  let delivered = true;
  try {
    delivered = (await ctx.outbox.postMarkdown("report", ctx.target, text)) !== "refused";
  } catch (error) {
    delivered = false;
    console.warn(`chat ${ctx.chat.id}: helper #${report.number}'s report could not be sent`, errorText(error));
  }
  const now = ctx.now();
  stores.atomically(() => {
    // Provenance: a report written after reading outside content carries the mark into the chat's history.
    const outside = report.untrustedSource;
    stores.history.append([{ role: "assistant", content: text, ...(outside === undefined ? {} : { outside }) }], now);
    stores.history.prune(ctx.settings.historyMaxStored);
    stores.usage.add(usageRecordOf(ctx.chat.id, report), now);
    forget(ctx, entry, {
      tokens: report.usage.inputTokens + report.usage.outputTokens,
      costUsd: report.usage.costUsd ?? 0,
      units: report.usage.paidUnits ?? {},
    });
    stores.inbox.finish([inboxId], now, delivered ? undefined : "the report could not be delivered to Telegram");
  });
}

/**
 * `/stop`: the helpers the sender started (an admin: all of them), or the one numbered; what the sender is told.
 */
export async function stopHelpers(
  ctx: ChatContext,
  who: { userId: number | undefined; isAdmin: boolean; number?: number },
): Promise<string> {
  const named = liveHelpers(ctx).filter((helper) => who.number === undefined || helper.number === who.number);
  if (named.length === 0)
    return who.number === undefined ? "Nothing is running." : `No helper #${who.number} is running.`;
  const mine = named.filter(
    (helper) => who.isAdmin || (helper.startedBy !== undefined && helper.startedBy === who.userId),
  );
  const stopped: number[] = [];
  for (const helper of mine) {
    if ((await ctx.helpers.stop(helper.id)) === "stopping") stopped.push(helper.number);
  }
  if (stopped.length === 0) return "Only the person who asked for a helper, or an admin, can stop it.";
  const list = stopped.map((number) => `#${number}`).join(", ");
  return `⏹ Stopping helper${stopped.length === 1 ? "" : "s"} ${list}; ${stopped.length === 1 ? "its report follows" : "their reports follow"}.`;
}

/** The Stop button of a helper's "started" line: the person who asked, or an admin. */
export async function pressHelperStop(
  ctx: ChatContext,
  press: { number: number; userId: number; byAdmin: boolean },
): Promise<string> {
  const helper = liveHelpers(ctx).find((running) => running.number === press.number);
  if (!helper) return "That helper has already finished.";
  if (!press.byAdmin && helper.startedBy !== undefined && helper.startedBy !== press.userId) {
    return "Only the person who asked, or an admin, can stop this.";
  }
  return (await ctx.helpers.stop(helper.id)) === "stopping" ? "Stopping…" : "That helper has already finished.";
}

/** /tasks' part on helpers, or undefined when none runs. */
export function helpersText(ctx: ChatContext): string | undefined {
  const running = liveHelpers(ctx);
  if (running.length === 0) return undefined;
  const now = ctx.now();
  return [
    "**Background helpers**",
    ...running.map(
      (helper) =>
        `#${helper.number} ${helper.label} — running for ${minutesOf(now - helper.startedAt)}, stops by itself within ${minutesOf(Math.max(0, helper.deadlineAt - now))} (/stop ${helper.number})`,
    ),
  ].join("\n");
}

/** The helpers that have not reported; one long past its deadline is lost and forgotten (its hold stays spent). */
function liveHelpers(ctx: ChatContext): RunningHelper[] {
  const helpers = ctx.stores.meta.get(helpersSlot) ?? [];
  const now = ctx.now();
  const live = helpers.filter((helper) => helper.deadlineAt + LOST_AFTER_MS > now);
  if (live.length !== helpers.length) {
    console.warn(`chat ${ctx.chat.id}: ${helpers.length - live.length} helper(s) never reported; forgotten`);
    ctx.stores.meta.set(helpersSlot, live);
  }
  return live;
}

/** Drops a helper from the running list and gives its hold back for what it really used. */
function forget(
  ctx: ChatContext,
  entry: RunningHelper | undefined,
  used: { tokens: number; costUsd: number; units: Record<string, number> },
): void {
  const { stores } = ctx;
  const helpers = stores.meta.get(helpersSlot) ?? [];
  if (entry)
    stores.meta.set(
      helpersSlot,
      helpers.filter((helper) => helper.id !== entry.id),
    );
  const stored = stores.meta.get(spendSlot);
  // The spend of the day the hold was taken from (another day's hold is not in today's spend).
  const day = stored?.day ?? entry?.hold.day;
  if (day === undefined) return;
  stores.meta.set(spendSlot, released(spendOn(day, stored), entry?.hold, used));
}

function reportText(report: HelperReport): string {
  const title = `🧩 **Helper #${report.number}: ${report.label}**`;
  switch (report.outcome) {
    case "answered":
      return `${title}\n\n${report.text}`;
    case "stopped":
      return `${title}\n\n⏹ It was stopped before it finished.`;
    case "timeout":
      return `${title}\n\n⏱ ${report.text}`;
    case "failed":
      return `${title}\n\n${report.text}`;
  }
}

function usageRecordOf(chatId: number, report: HelperReport): UsageRecord {
  const { usage } = report;
  return {
    chatId,
    kind: "helper",
    provider: usage.provider,
    model: usage.model,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    toolCalls: usage.toolCalls,
    durationMs: usage.durationMs,
    outcome: report.outcome === "answered" ? "ok" : "error",
    costUsd: usage.costUsd,
    ...(usage.paidUnits && Object.keys(usage.paidUnits).length > 0 ? { paidUnits: usage.paidUnits } : {}),
    createdAt: report.finishedAt,
  };
}

function sumUnits(left: Record<string, number>, right: Record<string, number>): Record<string, number> {
  const sum = { ...left };
  for (const [kind, units] of Object.entries(right)) sum[kind] = (sum[kind] ?? 0) + units;
  return sum;
}

function minutesOf(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}
