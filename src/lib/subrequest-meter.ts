import { errorText } from "./errors.ts";

/** What an invocation may spend: requests to the internet, to Cloudflare's services, and both together. */
export interface SubrequestLimits {
  external: number;
  services: number;
  total: number;
}

export type SubrequestPool = "external" | "services";

/** What a turn's display asks before a courtesy (a draft, an edit, "typing…", a 👀): the answer's room comes first. */
export interface SubrequestAllowance {
  /** Whether a courtesy may go now; false keeps what is left for the answer and the turn's own work. */
  allowsCourtesy(): boolean;
}

/** An allowance that always has room: a display given none (its unit tests). */
export const UNMETERED: SubrequestAllowance = { allowsCourtesy: () => true };

export interface SubrequestMeterOptions {
  /**
   * Starts a fresh invocation of the object (an event delivered to it, which the platform tops its limits up for),
   * and resolves once it has been delivered. Called when what is left runs low.
   */
  renew: () => Promise<void>;
}

/** Left when a fresh invocation is asked for: room for the calls under way while it comes (a turn has a few). */
const RENEW_AT = 12;
/** Left below which courtesies wait: room for the answer (its pieces, the status line's removal, a notice). */
const RESERVE = 8;

/**
 * One object's subrequests in its current invocation, counted as the platform counts them: each event delivered to
 * the object (a request, an RPC call, an alarm) is a new invocation whose limits start afresh (`topUp`), and every
 * request to the internet or a binding call the object makes until the next one counts against it (`spend`). When
 * what is left runs low, the meter asks for a fresh invocation (`renew`: the object calls itself) before the limit
 * is reached, so that a long turn goes on within it; if none comes, courtesies wait and what is left is kept for
 * the answer.
 */
export class SubrequestMeter implements SubrequestAllowance {
  private external = 0;
  private services = 0;
  /** The most any one invocation has spent, of each (for tests and reports). */
  private readonly peaks = { external: 0, services: 0, total: 0 };
  /** Fresh invocations asked for so far. */
  private asked = 0;
  private renewing = false;
  /** Events delivered since the object was made: a renewal that brought none has failed. */
  private invocations = 0;

  constructor(
    private readonly limits: SubrequestLimits,
    private readonly options: SubrequestMeterOptions,
  ) {}

  /** An event was delivered to the object: a new invocation, with its limits topped up. */
  topUp(): void {
    this.invocations++;
    this.external = 0;
    this.services = 0;
    this.renewing = false;
  }

  /** One subrequest is being made now. */
  spend(pool: SubrequestPool): void {
    if (pool === "external") this.external++;
    else this.services++;
    this.peaks.external = Math.max(this.peaks.external, this.external);
    this.peaks.services = Math.max(this.peaks.services, this.services);
    this.peaks.total = Math.max(this.peaks.total, this.external + this.services);
    if (this.left() <= RENEW_AT) this.renewSoon();
  }

  /** What is left before the first of the limits. */
  left(): number {
    return Math.min(
      this.limits.external - this.external,
      this.limits.services - this.services,
      this.limits.total - this.external - this.services,
    );
  }

  allowsCourtesy(): boolean {
    return this.left() > RESERVE;
  }

  /** The most any one invocation has spent so far (its external and services counts, and both together). */
  get peak(): Readonly<{ external: number; services: number; total: number }> {
    return this.peaks;
  }

  /** How many fresh invocations the meter has asked for. */
  get renewals(): number {
    return this.asked;
  }

  /**
   * One renewal at a time. A new event resets the meter (and lets it renew again); a renewal that brought none (it
   * failed, or went to an object that does not count) is not tried again until one comes: courtesies wait meanwhile.
   */
  private renewSoon(): void {
    if (this.renewing) return;
    this.renewing = true;
    this.asked++;
    const before = this.invocations;
    this.options.renew().then(
      () => {
        if (this.invocations === before) console.warn("a fresh invocation was asked for, and none came");
      },
      (error: unknown) => console.warn(`a fresh invocation could not be started: ${errorText(error)}`),
    );
  }
}
