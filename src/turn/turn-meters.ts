import { PaidCalls } from "../budget/paid-calls.ts";
import type { DailySpend } from "../budget/spend-slot.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import type { Settings } from "../config/settings.ts";
import { type Answerer, Tally } from "./tally.ts";

/**
 * What a chat's turn (or a guest's) is metered with: the tally of its model calls at the configured prices, and its
 * paid calls under the chat's caps and daily budget, against which the model calls' cost so far counts too.
 */
export function turnMeters(
  settings: Settings,
  config: EffectiveConfig,
  meter: { model: Answerer; spend: DailySpend },
): { tally: Tally; paid: PaidCalls } {
  const tally = new Tally(meter.model, (model) => settings.modelPrices.get(model));
  const paid = new PaidCalls(
    { prices: settings.paid.prices, caps: config.paidCaps, dailyCostUsd: config.budget.dailyCostUsd },
    meter.spend,
    () => tally.costUsd,
  );
  return { tally, paid };
}
