import type { DailySpend } from "../budget/spend-slot.ts";
import { PAID_KINDS, type PaidCap, type PaidKind, type PaidUnits } from "../config/paid-kinds.ts";
import type { HelperHold, HelperSlice } from "./helper-job.ts";

/** Fewer tokens than this is not worth a helper: one model call with tools needs about that much. */
const MIN_HELPER_TOKENS = 2_000;
/** Less money than this (US dollars) neither. */
const MIN_HELPER_USD = 0.001;

/** What a chat has used today: its stored spend (running helpers' holds included) plus the running turn's so far. */
export interface SpentToday {
  tokens: number;
  costUsd: number;
  units: PaidUnits;
}

/**
 * A helper's share of what its chat has left today, limit by limit: `share` of the tokens and dollars left, and of
 * the paid calls left under each daily cap (within the per-turn cap, since a helper's run is one turn). A limit the
 * chat does not have, the helper does not have either (its time limit and 50 model calls still bound it). Because a
 * running helper's slice is held in the day's spend (see `withHold`), the next helper's share is of what is left
 * after it: however many run, together they can never be given more than the chat had.
 */
export function helperSlice(input: {
  budget: { dailyTokens?: number; dailyCostUsd?: number };
  caps: Record<PaidKind, PaidCap>;
  spent: SpentToday;
  share: number;
}): { kind: "granted"; slice: HelperSlice } | { kind: "refused"; reason: string } {
  const { budget, caps, spent, share } = input;
  const slice: HelperSlice = { units: {} };
  if (budget.dailyTokens !== undefined) {
    const tokens = Math.floor(Math.max(0, budget.dailyTokens - spent.tokens) * share);
    if (tokens < MIN_HELPER_TOKENS) return { kind: "refused", reason: "today's token budget has too little left" };
    slice.tokens = tokens;
  }
  if (budget.dailyCostUsd !== undefined) {
    const costUsd = Math.max(0, budget.dailyCostUsd - spent.costUsd) * share;
    if (costUsd < MIN_HELPER_USD) return { kind: "refused", reason: "today's budget has too little left" };
    slice.costUsd = costUsd;
  }
  for (const kind of PAID_KINDS) {
    const cap = caps[kind];
    const daily =
      cap.perDay === undefined ? undefined : Math.floor(Math.max(0, cap.perDay - (spent.units[kind] ?? 0)) * share);
    const allowance = daily === undefined ? cap.perTurn : Math.min(daily, cap.perTurn ?? daily);
    if (allowance !== undefined) slice.units[kind] = allowance;
  }
  return { kind: "granted", slice };
}

/** The hold of a slice: every limit it has, and the paid calls under a daily cap. */
export function holdOf(day: string, slice: HelperSlice, caps: Record<PaidKind, PaidCap>): HelperHold {
  const units: PaidUnits = {};
  for (const kind of PAID_KINDS) {
    const allowance = slice.units[kind];
    if (allowance !== undefined && caps[kind].perDay !== undefined) units[kind] = allowance;
  }
  return { day, tokens: slice.tokens ?? 0, costUsd: slice.costUsd ?? 0, units };
}

/** The day's spend with a helper's hold added. */
export function withHold(spend: DailySpend, hold: HelperHold): DailySpend {
  return add(spend, hold, 1);
}

/**
 * The day's spend once a helper has reported: its hold given back (if it was taken from this day) and what it
 * really used added.
 */
export function released(spend: DailySpend, hold: HelperHold | undefined, used: SpentToday): DailySpend {
  const base = hold !== undefined && hold.day === spend.day ? add(spend, hold, -1) : spend;
  return add(base, used, 1);
}

function add(spend: DailySpend, amount: SpentToday, sign: 1 | -1): DailySpend {
  const units: PaidUnits = { ...spend.units };
  for (const kind of PAID_KINDS) {
    const change = amount.units[kind];
    if (change !== undefined) units[kind] = Math.max(0, (units[kind] ?? 0) + sign * change);
  }
  return {
    ...spend,
    tokens: Math.max(0, spend.tokens + sign * amount.tokens),
    costUsd: Math.max(0, spend.costUsd + sign * amount.costUsd),
    ...(Object.keys(units).length > 0 ? { units } : {}),
  };
}

/**
 * Why a helper makes no further model call: its tokens or dollars so far, with one more call like its last, would
 * pass its slice. (A turn's own limit stops at the budget; a helper stops before it, so that two helpers' slices
 * hold.)
 */
export function helperStop(
  slice: HelperSlice,
  used: { tokens: number; costUsd: number },
  lastCall: { tokens: number; costUsd: number },
): string | undefined {
  if (slice.tokens !== undefined && used.tokens + lastCall.tokens > slice.tokens) {
    return "its share of today's token budget is used up";
  }
  if (slice.costUsd !== undefined && used.costUsd + lastCall.costUsd > slice.costUsd) {
    return "its share of today's budget is used up";
  }
  return undefined;
}
