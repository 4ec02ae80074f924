import { DurableObject } from "cloudflare:workers";
import { ChatConfigStore } from "../config/config-store.ts";
import { loadSettings, settingsOf } from "../config/loaded-settings.ts";
import { PLAN_LIMITS } from "../config/plan-limits.ts";
import { database } from "../db/database.ts";
import type { Env } from "../env.ts";
import { type HelperJob, type HelperReport, helperJobSchema, helperReportSchema } from "../helpers/helper-job.ts";
import { SubrequestMeter } from "../lib/subrequest-meter.ts";
import { generatedMediaStore } from "../media/services.ts";
import { tools } from "../tools/index.ts";
import { ActiveRun } from "../turn/active-run.ts";
import { runHelperTurn } from "../turn/helper-turn.ts";
import { adapterSourcesOf, mcpOpenerOf } from "./bindings.ts";
import { chatStub } from "./chat-key.ts";
import { countBindings, type MeteredObject, meterInvocations } from "./metered-invocations.ts";
import { mediaBucket } from "./optional-bindings.ts";

/** A helper whose object died this many times mid-run reports that, instead of starting over again. */
const MAX_ATTEMPTS = 2;

/**
 * One background helper (`spawn`): its job, its turn on its own alarm (which the platform retries if the object dies,
 * and ends at 15 minutes; a helper's time limit is at most 13), and its report, kept until the chat's object has
 * taken it into its inbox. See src/turn/helpers.ts for why a helper is an object of its own.
 */
export class HelperSession extends DurableObject<Env> implements MeteredObject {
  /** The helper's turn while it runs in this instance: a stop reaches it here. */
  private run: ActiveRun | undefined;
  /** The alarm's work, for tests to wait on. */
  work: Promise<void> | undefined;
  /** This invocation's subrequests against the plan's limits, as in a chat's object (see ChatSession). */
  readonly subrequests: SubrequestMeter;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.subrequests = new SubrequestMeter(PLAN_LIMITS[settingsOf(env).plan], {
      renew: () => env.HELPER_SESSION.get(ctx.id).freshInvocation(),
    });
    countBindings(env);
  }

  /** Takes the job and starts it at once; the same job again is a no-op. */
  async start(job: HelperJob): Promise<void> {
    const parsed = helperJobSchema.parse(job);
    if ((await this.ctx.storage.get("job")) !== undefined) return;
    await this.ctx.storage.put({ job: parsed, attempts: 0 });
    await this.ctx.storage.setAlarm(Date.now());
  }

  /** Stops the helper: its turn ends now, or (between attempts) it reports without running again. */
  async stop(): Promise<"stopping" | "unknown"> {
    if ((await this.ctx.storage.get("job")) === undefined) return "unknown";
    await this.ctx.storage.put("stopRequested", true);
    this.run?.stop("stopped");
    return "stopping";
  }

  override async alarm(): Promise<void> {
    await loadSettings(this.env);
    this.work = this.runJob();
    await this.work;
  }

  /** Nothing: being called starts a fresh invocation, as ChatSession's. */
  async freshInvocation(): Promise<void> {}

  /** Runs the job (unless it has a report already), keeps the report, and hands it to the chat's inbox. */
  private async runJob(): Promise<void> {
    const job = helperJobSchema.safeParse(await this.ctx.storage.get("job"));
    if (!job.success) {
      await this.ctx.storage.deleteAll();
      return;
    }
    const stored = helperReportSchema.safeParse(await this.ctx.storage.get("report"));
    const report = stored.success ? stored.data : await this.attempt(job.data);
    // A failure to hand it over throws, and the platform runs the alarm again: the kept report, not the turn.
    await chatStub(this.env, job.data.target).helperFinished(report);
    await this.ctx.storage.deleteAll();
  }

  private async attempt(job: HelperJob): Promise<HelperReport> {
    const attempts = ((await this.ctx.storage.get<number>("attempts")) ?? 0) + 1;
    await this.ctx.storage.put("attempts", attempts);
    const now = Date.now();
    const left = job.startedAt + job.timeLimitMs - now;
    let report: HelperReport;
    if ((await this.ctx.storage.get("stopRequested")) === true) {
      report = endedBefore(job, "stopped", "It was stopped.");
    } else if (attempts > MAX_ATTEMPTS) {
      report = endedBefore(job, "failed", "⚠️ The helper was interrupted twice and gave up.");
    } else if (left <= 0) {
      report = endedBefore(job, "timeout", "It ran out of time before it finished.");
    } else {
      const run = new ActiveRun(job.startedBy === undefined ? [] : [job.startedBy]);
      this.run = run;
      run.stopAfter(left);
      try {
        const settings = settingsOf(this.env);
        report = await runHelperTurn(
          {
            settings,
            db: database(this.env),
            registry: tools,
            now: Date.now,
            configs: new ChatConfigStore(this.env.CONFIG, tools.names),
            adapters: adapterSourcesOf(this.env, settings),
            mcp: mcpOpenerOf(this.env, settings),
            storeGenerated: generatedMediaStore(mediaBucket(this.env)),
          },
          job,
          run,
        );
      } finally {
        run.end();
        this.run = undefined;
      }
    }
    await this.ctx.storage.put("report", report);
    return report;
  }
}

// Every method entered from outside the object is an invocation, counted (see metered-invocations.ts).
meterInvocations(HelperSession.prototype);

/** A report for a helper that made no model call (stopped or out of time before it ran again). */
function endedBefore(job: HelperJob, outcome: HelperReport["outcome"], text: string): HelperReport {
  return {
    id: job.id,
    number: job.number,
    label: job.label,
    outcome,
    text,
    usage: {
      provider: "none",
      model: "none",
      inputTokens: 0,
      outputTokens: 0,
      toolCalls: 0,
      costUsd: null,
      durationMs: 0,
    },
    finishedAt: Date.now(),
  };
}
