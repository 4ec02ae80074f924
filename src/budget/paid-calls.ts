import { PAID_KINDS, type PaidCap, type PaidKind, type PaidUnits } from "../config/paid-kinds.ts";
import { Holds, type PaidHold } from "./reservations.ts";
import type { DailySpend } from "./spend-slot.ts";

export interface PaidPolicy {
  /** US dollars per unit of each kind. */
  prices: Record<PaidKind, number>;
  caps: Record<PaidKind, PaidCap>;
  /** The chat's daily cost budget (undefined: none). */
  dailyCostUsd: number | undefined;
}

/** Whether one more paid call may be made now, and what it cost once made: the turn's tools ask this. */
export interface PaidCallGate {
  /** Why `units` more of `kind` may not be paid for now (a cap, or the day's budget), or undefined when they may. */
  refusal(kind: PaidKind, units: number): string | undefined;
  /** A call was made: its units, at the configured price unless the real cost is known. */
  record(kind: PaidKind, units: number, costUsd?: number): void;
  /**
   * Holds `units` of `kind` before the call is made (a cap, or the day's budget, refuses them: the reason), so that
   * calls running at once cannot together pass a cap; the hold is settled once the call is made, released if not.
   */
  reserve(kind: PaidKind, units: number): { held: PaidHold } | { refused: string };
}

const NAMES: Record<PaidKind, (units: number) => string> = {
  image: (units) => `${units} image${units === 1 ? "" : "s"}`,
  search: (units) => `${units} web search${units === 1 ? "" : "es"}`,
  speech: (units) => `${units.toLocaleString("en-US")} characters of speech`,
  transcription: (units) => `${Math.ceil(units / 60)} minute${Math.ceil(units / 60) === 1 ? "" : "s"} of audio`,
};

/**
 * One turn's paid calls against the chat's caps and budget. Today's counts come from the stored spend, the turn's own
 * are kept here; the turn's record adds them to the usage record and the day's spend. `tokenCostUsd` is what the
 * turn's model calls have cost so far, which counts against the same daily budget.
 */
export class PaidCalls implements PaidCallGate {
  readonly units: PaidUnits = {};
  costUsd = 0;
  private readonly holds = new Holds();

  constructor(
    private readonly policy: PaidPolicy,
    private readonly today: DailySpend,
    private readonly tokenCostUsd: () => number = () => 0,
  ) {}

  refusal(kind: PaidKind, units: number): string | undefined {
    const cap = this.policy.caps[kind];
    const thisTurn = (this.units[kind] ?? 0) + this.holds.unitsOf(kind) + units;
    if (cap.perTurn !== undefined && thisTurn > cap.perTurn) {
      return `One message may use at most ${NAMES[kind](cap.perTurn)} in this chat.`;
    }
    if (cap.perDay !== undefined && (this.today.units?.[kind] ?? 0) + thisTurn > cap.perDay) {
      return `This chat has used today's allowance of ${NAMES[kind](cap.perDay)}; it renews at midnight.`;
    }
    const budget = this.policy.dailyCostUsd;
    const cost = units * this.policy.prices[kind];
    const spent = this.today.costUsd + this.tokenCostUsd() + this.costUsd + this.holds.costUsd;
    if (budget !== undefined && spent + cost > budget) {
      return `This chat's budget for today ($${budget.toFixed(2)}) does not cover that.`;
    }
    return undefined;
  }

  reserve(kind: PaidKind, units: number): { held: PaidHold } | { refused: string } {
    const refused = this.refusal(kind, units);
    if (refused !== undefined) return { refused };
    const cost = units * this.policy.prices[kind];
    return { held: this.holds.hold(kind, units, cost, (real) => this.record(kind, units, real)) };
  }

  record(kind: PaidKind, units: number, costUsd = units * this.policy.prices[kind]): void {
    this.units[kind] = (this.units[kind] ?? 0) + units;
    this.costUsd += costUsd;
  }
}

/** How many more units of `kind` (up to `most`) may be paid for now: a server tool's per-call allowance. */
export function allowance(gate: PaidCallGate, kind: PaidKind, most: number): number {
  for (let units = most; units > 0; units--) if (gate.refusal(kind, units) === undefined) return units;
  return 0;
}

/** The day's spend with a turn's paid units added. */
export function addUnits(spend: DailySpend, units: PaidUnits): DailySpend {
  const sum: PaidUnits = { ...spend.units };
  for (const kind of PAID_KINDS) {
    const added = units[kind];
    if (added !== undefined) sum[kind] = (sum[kind] ?? 0) + added;
  }
  return { ...spend, units: sum };
}
