import type { PaidKind } from "../config/paid-kinds.ts";

/**
 * A paid call's units held against the caps and the day's budget from before the call is made until it is settled
 * (made: recorded at its cost) or released (not made). Concurrent calls (an agent's tool path runs them at once) each
 * see the others' holds, so a cap checked before and recorded after can no longer be passed by calls in flight.
 */
export interface PaidHold {
  /** The call was made: its units are recorded, at the configured price unless the real cost is known. */
  settle(costUsd?: number): void;
  /** The call was not made (it failed before the provider charged): the units are free again. */
  release(): void;
}

/** The units and dollars held by calls in flight, by kind; a hold settles or releases once. */
export class Holds {
  private readonly units: Partial<Record<PaidKind, number>> = {};
  costUsd = 0;

  unitsOf(kind: PaidKind): number {
    return this.units[kind] ?? 0;
  }

  hold(kind: PaidKind, units: number, costUsd: number, settle: (costUsd?: number) => void): PaidHold {
    this.units[kind] = this.unitsOf(kind) + units;
    this.costUsd += costUsd;
    let open = true;
    const free = () => {
      if (!open) return false;
      open = false;
      this.units[kind] = this.unitsOf(kind) - units;
      this.costUsd -= costUsd;
      return true;
    };
    return {
      settle: (real) => {
        if (free()) settle(real);
      },
      release: () => {
        free();
      },
    };
  }
}
