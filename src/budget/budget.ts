import type { EffectiveConfig } from "../config/chat-config.ts";
import { PAID_KINDS, type PaidCap, type PaidKind } from "../config/paid-kinds.ts";
import type { ModelPrice } from "../config/settings-lists.ts";
import type { DailySpend } from "./spend-slot.ts";

/** Today's spend: the stored one if it is today's, else a fresh day. */
export function spendOn(day: string, stored: DailySpend | undefined): DailySpend {
  return stored?.day === day ? stored : { day, tokens: 0, costUsd: 0, noticeSent: false };
}

/**
 * The day's spend as stored now, when it is still the day a turn began in (helpers started or reporting during the
 * turn change it); else the spend the turn began with.
 */
export function latestSpend(turnStart: DailySpend, stored: DailySpend | undefined): DailySpend {
  return stored?.day === turnStart.day ? stored : turnStart;
}

/** Which limit today's spend has reached, if any. */
export function exhaustedLimit(spend: DailySpend, budget: EffectiveConfig["budget"]): string | undefined {
  if (budget.dailyTokens !== undefined && spend.tokens >= budget.dailyTokens) {
    return `${budget.dailyTokens.toLocaleString("en-US")} tokens`;
  }
  if (budget.dailyCostUsd !== undefined && spend.costUsd >= budget.dailyCostUsd) {
    return `$${budget.dailyCostUsd.toFixed(2)}`;
  }
  return undefined;
}

/** A model call's cost in US dollars, when the model's price is configured (else 0). */
export function costOf(usage: { inputTokens: number; outputTokens: number }, price: ModelPrice | undefined): number {
  if (!price) return 0;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

export function addSpend(
  spend: DailySpend,
  usage: { inputTokens: number; outputTokens: number },
  costUsd: number,
): DailySpend {
  return { ...spend, tokens: spend.tokens + usage.inputTokens + usage.outputTokens, costUsd: spend.costUsd + costUsd };
}

/** The line /status shows, or undefined for a chat without limits. */
export function budgetLine(spend: DailySpend, budget: EffectiveConfig["budget"]): string | undefined {
  const parts: string[] = [];
  if (budget.dailyTokens !== undefined) {
    const left = Math.max(0, budget.dailyTokens - spend.tokens);
    parts.push(`${left.toLocaleString("en-US")} of ${budget.dailyTokens.toLocaleString("en-US")} tokens left`);
  }
  if (budget.dailyCostUsd !== undefined) {
    const left = Math.max(0, budget.dailyCostUsd - spend.costUsd);
    parts.push(`$${left.toFixed(2)} of $${budget.dailyCostUsd.toFixed(2)} left`);
  }
  return parts.length === 0 ? undefined : `**Budget today:** ${parts.join("; ")}`;
}

/** How /status names each paid kind's units, and turns stored units into them (audio is stored in seconds). */
const PAID_SHOWN: Record<PaidKind, { name: string; unit: string; of: (units: number) => number }> = {
  image: { name: "Images", unit: "", of: (units) => units },
  transcription: { name: "Audio", unit: " min", of: (units) => units / 60 },
  search: { name: "Searches", unit: "", of: (units) => units },
  speech: { name: "Spoken", unit: " characters", of: (units) => units },
};

/**
 * /status's line on paid calls today against their caps (per day, and per message): images and audio minutes always,
 * searches and speech when capped or used.
 */
export function paidLine(spend: DailySpend, caps: Record<PaidKind, PaidCap>): string {
  const parts: string[] = [];
  for (const kind of PAID_KINDS) {
    const shown = PAID_SHOWN[kind];
    const used = spend.units?.[kind] ?? 0;
    const cap = caps[kind];
    if (kind !== "image" && kind !== "transcription" && used === 0 && cap.perDay === undefined) continue;
    const amount = (units: number) => amountText(shown.of(units));
    const daily =
      cap.perDay === undefined
        ? `${amount(used)}${shown.unit} (no daily cap)`
        : `${amount(used)} of ${amount(cap.perDay)}${shown.unit}`;
    const perMessage = cap.perTurn === undefined ? "" : `, at most ${amount(cap.perTurn)} per message`;
    parts.push(`${shown.name} ${daily}${perMessage}`);
  }
  return `**Paid calls today:** ${parts.join(" · ")}`;
}

function amountText(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(1);
}

/** The one message a chat gets when its budget is used up for the day. */
export function budgetNotice(limit: string, timezone: string, hoursUntilReset: number): string {
  const when = hoursUntilReset < 1 ? "in less than an hour" : `in about ${Math.round(hoursUntilReset)} h`;
  return (
    `⏳ This chat has used today's budget (${limit}), so I'm pausing until midnight ${timezone} (${when}). ` +
    "Your messages are kept; /status shows what is left."
  );
}
