import type { ToolExecutor } from "../adapters/types.ts";
import type { ToolOutcome } from "../protocol/run-payload.ts";
import type { Burst } from "./burst.ts";

/** Why a turn was stopped: a person asked (/stop), or it ran into its time limit. */
export type StopReason = "stopped" | "deadline";

const toolsNotReady: ToolExecutor = async () => ({ isError: true, content: "Error: the tools are not ready yet." });

/**
 * The life of one running turn: its abort switch with the reason, its deadline, its tools once they are known, and
 * its id, which a remote runner's signed token names to call those tools back. One at a time per chat object.
 */
export class ActiveRun {
  readonly id = crypto.randomUUID();
  /** The turn's rich draft (non-zero, as Telegram wants): a press of its stop control names it. */
  readonly draftId = 1 + Math.floor(Math.random() * 2_000_000_000);

  /**
   * `askers`: the users whose messages the turn answers (a task's creator), who may stop it. `burst`: a chat turn's
   * way in for messages sent right after its own (see Burst), closed when the turn is stopped or ends.
   */
  constructor(
    private readonly own: readonly number[] = [],
    readonly burst?: Burst,
  ) {}

  /** Who asked: the senders of the turn's messages, and of those that joined it. */
  get askers(): readonly number[] {
    const joined = this.burst?.senders ?? [];
    return joined.length === 0 ? this.own : [...new Set([...this.own, ...joined])];
  }

  /** Whoever asked may stop the turn, and an admin; a turn nobody in particular asked for, anyone of the chat. */
  mayBeStoppedBy(userId: number | undefined, byAdmin: boolean): boolean {
    const askers = this.askers;
    return byAdmin || askers.length === 0 || (userId !== undefined && askers.includes(userId));
  }

  private readonly controller = new AbortController();
  private reason: StopReason | undefined;
  private ended = false;
  private executor: ToolExecutor = toolsNotReady;
  private deadline: ReturnType<typeof setTimeout> | undefined;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Ends the turn; the first reason given is the one that counts. The signal carries the default reason, not this one:
   * the runtime logs a fetch aborted with a reason of the caller's while its request body was still going out as an
   * uncaught error.
   */
  stop(reason: StopReason): void {
    this.burst?.close();
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller.abort();
  }

  get stopReason(): StopReason | undefined {
    return this.reason;
  }

  /** Stops the turn with "deadline" after `ms` (at least a second), unless it ends first. */
  stopAfter(ms: number): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => this.stop("deadline"), Math.max(1_000, ms));
  }

  /** The turn is over: its timer goes, and remote tool calls are refused from now on. */
  end(): void {
    clearTimeout(this.deadline);
    this.burst?.close();
    this.ended = true;
    this.executor = toolsNotReady;
  }

  /** Whether a draft's stop control belongs to this turn, still running. */
  ownsDraft(draftId: number): boolean {
    return !this.ended && draftId === this.draftId;
  }

  /** Whether a (verified) token's run is this one, still running. */
  accepts(runId: string): boolean {
    return !this.ended && runId === this.id;
  }

  useTools(executor: ToolExecutor): void {
    this.executor = executor;
  }

  execute(name: string, argumentsText: string): Promise<ToolOutcome> {
    return this.executor(name, argumentsText);
  }
}

/** A chat object's one running turn, if any: registered before anything else, so /stop and remote tool calls find it. */
export class RunSlot {
  private running: ActiveRun | undefined;

  begin(askers: readonly number[], burst?: Burst): ActiveRun {
    this.running = new ActiveRun(askers, burst);
    return this.running;
  }

  /** The turn is over (again is harmless): its timer stops, its tools refuse remote calls, and /stop finds nothing. */
  end(run: ActiveRun): void {
    run.end();
    if (this.running === run) this.running = undefined;
  }

  get current(): ActiveRun | undefined {
    return this.running;
  }
}
