import type { ClosedRun, ProxyUsage, RunAllowance } from "../adapters/agent-runs.ts";
import { admitCall, EMPTY_USAGE } from "./model-proxy.ts";
import type { Admission, CallHold, RunLedger } from "./model-proxy-admission.ts";

/** What a container's object keeps about a run while its model calls may go through the proxy. */
export interface OpenRun {
  model: string;
  openedAt: number;
  usage: ProxyUsage;
  /** When its recent model calls were admitted (epoch ms, the last minute only). */
  recentCalls: number[];
  /** What it may spend; absent in runs opened before allowances existed. */
  allowance?: RunAllowance;
  /** A call was refused because the run had spent its allowance. */
  overBudget?: boolean;
  /** What the calls in flight may still use, by call: held against the allowance until their usage is recorded. */
  holds?: Record<string, { inputTokens: number; outputTokens: number }>;
}

/** Where the open runs are kept: the AgentContainer object's storage in production, a Map in tests. */
export interface OpenRunStore {
  get(runKey: string): Promise<OpenRun | undefined>;
  put(runKey: string, run: OpenRun): Promise<void>;
  delete(runKeys: string[]): Promise<void>;
  all(): Promise<Map<string, OpenRun>>;
}

/** Runs a container may have open at once (one runs at a time; a closing one may overlap the next). */
const MAX_OPEN_RUNS = 8;
/** A run never closed (its Worker was evicted mid-run) is forgotten after a day. */
const FORGOTTEN_AFTER_MS = 86_400_000;

/** The runs of one container whose tokens open the model proxy, with what their calls cost. */
export class OpenRuns implements RunLedger {
  // Plain fields, not parameter properties: the container tests run this file under Node's type stripping.
  private readonly store: OpenRunStore;
  private readonly now: () => number;
  /**
   * Read-modify-write of a run, one at a time on this ledger. In the AgentContainer object the input gate already keeps
   * a storage read and its write together; a ledger over a Map (tests, the runner started by hand) needs this.
   */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(store: OpenRunStore, now: () => number = Date.now) {
    this.store = store;
    this.now = now;
  }

  /** Before a run starts: its model calls may go through the proxy, pinned to `model`, until `close`. */
  async open(runKey: string, model: string, allowance: RunAllowance = {}): Promise<void> {
    const now = this.now();
    const oldestFirst = [...(await this.store.all()).entries()].sort(([, a], [, b]) => a.openedAt - b.openedAt);
    const excess = oldestFirst.length - (MAX_OPEN_RUNS - 1);
    const expired = oldestFirst.filter(([, run], index) => index < excess || now - run.openedAt > FORGOTTEN_AFTER_MS);
    if (expired.length > 0) await this.store.delete(expired.map(([key]) => key));
    await this.store.put(runKey, { model, openedAt: now, usage: { ...EMPTY_USAGE }, recentCalls: [], allowance });
  }

  /**
   * A model call of the run: admitted (and counted) while the run is open and within its rate, and, with a `hold`,
   * only if what the calls in flight may still use, this one's included, stays within the allowance; the hold then
   * counts until the call's usage is recorded. So calls made at once cannot together pass the run's allowance.
   */
  admit(runKey: string, hold?: CallHold): Promise<Admission> {
    return this.serially(async () => {
      const run = await this.store.get(runKey);
      if (!run) return { kind: "closed" };
      const holds = { ...run.holds };
      if (hold) holds[hold.id] = { inputTokens: hold.inputTokens, outputTokens: hold.outputTokens };
      if (spentAllowance(run, Object.values(holds))) {
        await this.store.put(runKey, { ...run, overBudget: true });
        return { kind: "over_budget" };
      }
      const decision = admitCall(run.recentCalls, this.now());
      await this.store.put(runKey, {
        ...run,
        recentCalls: decision.recent,
        ...(decision.admitted && hold ? { holds } : {}),
      });
      return decision.admitted
        ? { kind: "admitted", model: run.model }
        : { kind: "rate_limited", retryAfterSeconds: decision.retryAfterSeconds };
    });
  }

  /** A call's usage, in place of its hold (a call that reported nothing gives its hold back with zero usage). */
  record(runKey: string, usage: ProxyUsage, holdId?: string): Promise<void> {
    return this.serially(async () => {
      const run = await this.store.get(runKey);
      if (!run) return;
      const { [holdId ?? ""]: _released, ...holds } = run.holds ?? {};
      await this.store.put(runKey, { ...run, usage: addUsage(run.usage, usage), holds });
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** The run is over: its token opens nothing any more. Returns what its model calls cost, as the proxy saw it. */
  async close(runKey: string): Promise<ClosedRun | undefined> {
    const run = await this.store.get(runKey);
    await this.store.delete([runKey]);
    return run ? { usage: run.usage, overBudget: run.overBudget === true } : undefined;
  }
}

/**
 * Whether a run's calls reach what it may spend (tokens, or dollars at its model's price): what they used, and what
 * the calls in flight may still use. Without holds, reaching the allowance is spent; with them, passing it.
 */
function spentAllowance(run: OpenRun, holds: readonly { inputTokens: number; outputTokens: number }[] = []): boolean {
  const { allowance, usage } = run;
  if (!allowance) return false;
  const heldInput = holds.reduce((sum, hold) => sum + hold.inputTokens, 0);
  const heldOutput = holds.reduce((sum, hold) => sum + hold.outputTokens, 0);
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + heldInput;
  const output = usage.outputTokens + heldOutput;
  const reached =
    holds.length === 0 ? (used: number, most: number) => used >= most : (used: number, most: number) => used > most;
  if (allowance.maxTokens !== undefined && reached(input + output, allowance.maxTokens)) return true;
  if (allowance.maxCostUsd === undefined || !allowance.price) return false;
  const cost = (input * allowance.price.input + output * allowance.price.output) / 1_000_000;
  return reached(cost, allowance.maxCostUsd);
}

function addUsage(a: ProxyUsage, b: ProxyUsage): ProxyUsage {
  return {
    calls: a.calls + b.calls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}
