import type { DrizzleD1Database } from "drizzle-orm/d1";
import { type AdapterSources, createAdapter } from "../adapters/index.ts";
import { functionTools } from "../adapters/request-tools.ts";
import { PaidCalls } from "../budget/paid-calls.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import { type ConfigReader, effectiveConfigOf } from "../config/config-store.ts";
import { PAID_KINDS, type PaidCap, type PaidKind } from "../config/paid-kinds.ts";
import { DEFAULT_MODELS, isModelProvider, type ModelProvider } from "../config/providers.ts";
import { builtInProvider, type Settings } from "../config/settings.ts";
import { dayKey } from "../config/zones.ts";
import type { HelperJob, HelperReport } from "../helpers/helper-job.ts";
import { errorText } from "../lib/errors.ts";
import type { McpOpener } from "../mcp/chat-mcp.ts";
import type { GeneratedStore } from "../media/services.ts";
import { MemoryRepository } from "../memory/memory-repository.ts";
import { userFacingError } from "../reply/error-text.ts";
import { NO_SKILLS, type TurnSkills } from "../skills/skill.ts";
import { readableSkill, skillsForChat } from "../skills/skill-store.ts";
import { TaskRepository } from "../tasks/task-repository.ts";
import { type ToolContext, TurnTrust } from "../tools/context.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { ActiveRun } from "./active-run.ts";
import { answerEnding } from "./answer-ending.ts";
import { drain } from "./engine/drain.ts";
import { sliceStop } from "./engine/stop-conditions.ts";
import { armTools, runEngine } from "./engine/turn-engine.ts";
import { turnPrompt } from "./engine/turn-prompt.ts";
import { turnTools } from "./engine/turn-tools.ts";
import { helperPolicy } from "./policies/helper-policy.ts";
import { Tally } from "./tally.ts";

/** What a helper's turn works with, in its own object. */
export interface HelperTurnContext {
  settings: Settings;
  configs: ConfigReader;
  adapters: AdapterSources;
  mcp: McpOpener;
  storeGenerated: GeneratedStore;
  db: DrizzleD1Database;
  registry: ToolRegistry;
  now: () => number;
}

/**
 * A helper's one turn: the chat's model (a model provider's; an agent chat's helper uses the built-in provider), the
 * chat's tools without those that act beyond the answer (helper-tools.ts), its instructions and skills, and the task
 * as the only message. It stops at its time limit (`run`), at `/stop`, or before a call that would pass its slice of
 * the budget; whatever happens, it returns a report for the chat, with what it used.
 */
export async function runHelperTurn(ctx: HelperTurnContext, job: HelperJob, run: ActiveRun): Promise<HelperReport> {
  const started = ctx.now();
  const { settings } = ctx;
  const { config } = await effectiveConfigOf(ctx.configs, job.chat.id, settings);
  const { provider, model } = helperModelOf(config, settings);
  const tally = new Tally({ provider, model }, (name) => settings.modelPrices.get(name));
  const paid = new PaidCalls(
    { prices: settings.paid.prices, caps: capsOf(job, config), dailyCostUsd: job.slice.costUsd },
    { day: dayKey(started, config.timezone), tokens: 0, costUsd: 0, noticeSent: false },
    () => tally.costUsd,
  );
  const report = reporter(ctx, job, { tally, paid, started });
  if (!config.enabled) return report("failed", "The bot is disabled in this chat, so the helper did not run.");
  const choice = createAdapter(provider, ctx.adapters);
  if (choice.kind === "unavailable" || choice.adapter.kind !== "model") {
    return report("failed", `The helper could not run: ${choice.kind === "unavailable" ? choice.problem : provider}.`);
  }

  const trust = new TurnTrust(job.untrustedSource, { privateFrom: job.privateSource });
  const slice = sliceStop(job.slice, { tally, paid });
  const policy = helperPolicy(settings, { untrusted: job.untrustedSource, slice });
  const mcp = await ctx.mcp(config, run.signal);
  try {
    const registry = ctx.registry.extendedWith(mcp.tools);
    const offered = turnTools({
      policy,
      registry,
      allowlist: config.tools,
      settings,
      adapterKind: "model",
      skills: await skillsOf(ctx, job.chat.id),
      serverSearch: false,
    });
    const context = helperToolContext(ctx, job, { trust, timezone: config.timezone, paid });
    armTools(run, policy, (name, argumentsText) => registry.execute(name, argumentsText, context, config.tools));
    const system = turnPrompt({
      policy,
      facts: {
        botName: settings.botName,
        ...(config.systemPrompt ? { chatPrompt: config.systemPrompt } : {}),
        chat: {
          type: job.chat.type,
          ...(job.chat.title ? { title: job.chat.title } : {}),
          isForumTopic: job.target.threadId !== undefined,
        },
        now: new Date(started),
        timezone: config.timezone,
      },
      toolNames: offered.toolNames,
      skillText: offered.skillText,
      mcpNote: mcp.note,
    });
    const events = runEngine({
      policy,
      adapter: choice.adapter,
      run,
      request: {
        model,
        system,
        messages: [{ role: "user", content: `Task:\n${job.task}` }],
        tools: functionTools(offered.modelTools),
        signal: run.signal,
      },
    });
    await drain(events, tally, provider);
    const [outcome, text] = helperEnding(run, job, { tally, slice });
    return report(outcome, text, trust);
  } catch (error) {
    return report("failed", `⚠️ The helper failed: ${errorText(error).slice(0, 200)}`, trust);
  } finally {
    await mcp.close();
  }
}

/** The report of a helper's turn, with what it used so far. */
function reporter(
  ctx: HelperTurnContext,
  job: HelperJob,
  meter: { tally: Tally; paid: PaidCalls; started: number },
): (outcome: HelperReport["outcome"], text: string, trust?: TurnTrust) => HelperReport {
  const { tally, paid, started } = meter;
  return (outcome, text, trust) => ({
    id: job.id,
    number: job.number,
    label: job.label,
    outcome,
    text,
    ...(trust?.untrustedSource === undefined ? {} : { untrustedSource: trust.untrustedSource }),
    usage: {
      provider: tally.answeredBy.provider,
      model: tally.answeredBy.model,
      inputTokens: tally.usage.inputTokens,
      outputTokens: tally.usage.outputTokens,
      toolCalls: tally.toolCalls,
      costUsd: tally.cost === null && paid.costUsd === 0 ? null : (tally.cost ?? 0) + paid.costUsd,
      ...(Object.keys(paid.units).length > 0 ? { paidUnits: paid.units } : {}),
      durationMs: ctx.now() - started,
    },
    finishedAt: ctx.now(),
  });
}

/** How a helper's turn ended, as its report says it: stopped, out of time or of its slice, failed, or answered. */
function helperEnding(
  run: ActiveRun,
  job: HelperJob,
  turn: { tally: Tally; slice: { stopped: string | undefined } },
): [HelperReport["outcome"], string] {
  const { tally, slice } = turn;
  switch (run.stopReason) {
    case "deadline":
      return ["timeout", `It ran out of time (${Math.round(job.timeLimitMs / 1000)} s) before it finished.`];
    case "stopped":
      return ["stopped", "It was stopped."];
    case undefined:
      break;
  }
  if (tally.error) return ["failed", slice.stopped ? `It stopped: ${slice.stopped}.` : userFacingError(tally.error)];
  // A cut or withheld report says so, as a chat's answer does.
  const { shown } = answerEnding(tally.result?.trim() ?? "", tally.finish);
  return ["answered", shown === "…" ? "(The helper finished without a report.)" : shown];
}

/** The chat's model when it is a model provider's; an agent chat's helpers use the built-in provider. */
function helperModelOf(config: EffectiveConfig, settings: Settings): { provider: ModelProvider; model: string } {
  if (isModelProvider(config.provider)) return { provider: config.provider, model: config.model };
  if (settings.defaultProvider !== undefined && isModelProvider(settings.defaultProvider)) {
    return {
      provider: settings.defaultProvider,
      model: settings.defaultModel ?? DEFAULT_MODELS[settings.defaultProvider],
    };
  }
  const provider = builtInProvider(settings);
  return isModelProvider(provider)
    ? { provider, model: DEFAULT_MODELS[provider] }
    : { provider: "workers-ai", model: DEFAULT_MODELS["workers-ai"] };
}

/** The helper's paid-call caps: its slice where the chat has a cap, as one turn of the chat otherwise. */
function capsOf(job: HelperJob, config: EffectiveConfig): Record<PaidKind, PaidCap> {
  const caps = {} as Record<PaidKind, PaidCap>;
  for (const kind of PAID_KINDS) {
    const allowance = job.slice.units[kind] ?? config.paidCaps[kind].perTurn;
    caps[kind] = allowance === undefined ? {} : { perTurn: allowance };
  }
  return caps;
}

/** Who asks and where, for a helper's tools: never an admin chat, and nothing that sends or schedules. */
function helperToolContext(
  ctx: HelperTurnContext,
  job: HelperJob,
  turn: { trust: TurnTrust; timezone: string; paid: PaidCalls },
): ToolContext {
  const refuse = async () => {
    throw new Error("a background helper cannot send or schedule anything");
  };
  return {
    chatId: job.chat.id,
    threadId: job.target.threadId,
    userId: job.startedBy,
    isAdminChat: false,
    isAdminUser: job.isAdminUser,
    trust: turn.trust,
    settings: ctx.settings,
    memories: new MemoryRepository(ctx.db),
    tasks: new TaskRepository(ctx.db),
    readSkill: (name) => readableSkill(ctx.db, job.chat.id, name),
    timezone: turn.timezone,
    now: ctx.now,
    isChatAllowed: () => false,
    sendMessage: refuse,
    sendPhoto: refuse,
    storeGenerated: ctx.storeGenerated,
    paid: turn.paid,
    tasksChanged: refuse,
  };
}

async function skillsOf(ctx: HelperTurnContext, chatId: number): Promise<TurnSkills> {
  try {
    return await skillsForChat(ctx.db, chatId);
  } catch (error) {
    console.warn(`chat ${chatId}: a helper goes on without skills`, errorText(error));
    return NO_SKILLS;
  }
}
