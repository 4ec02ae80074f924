import { latestSpend } from "../budget/budget.ts";
import { spendSlot } from "../budget/spend-slot.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import { effectiveConfigOf } from "../config/config-store.ts";
import { providerSetupOf } from "../config/provider-setup.ts";
import { isProvider } from "../config/providers.ts";
import { redactSecrets } from "../lib/redact.ts";
import type { AgentErrorEvent } from "../protocol/events.ts";
import type { RichOptions } from "../reply/answer-delivery.ts";
import { notSetUpText, userFacingError } from "../reply/error-text.ts";
import { draftsRefusedSlot, richRefusedSlot } from "../reply/reply-slots.ts";
import { richRefusal } from "../reply/rich-refusal.ts";
import type { TurnDisplayOptions } from "../reply/turn-display.ts";
import type { ActiveRun } from "./active-run.ts";
import { admit, refuse } from "./admission.ts";
import { answerEnding } from "./answer-ending.ts";
import { finishAnswer } from "./answer-handover.ts";
import { converse } from "./attempts.ts";
import type { ChatContext } from "./chat-context.ts";
import { endingError } from "./engine/turn-stop.ts";
import { usersOf, usersWithoutFiles } from "./incoming-files.ts";
import { closedRequest } from "./joined-turn.ts";
import { chooseModel } from "./model-chain.ts";
import { chatPolicy } from "./policies/chat-policy.ts";
import { taskPolicy } from "./policies/task-policy.ts";
import { recordTurn } from "./record.ts";
import { turnMeters } from "./turn-meters.ts";
import type { AdmittedTurn, TurnOutcome, TurnRequest } from "./turn-request.ts";

/**
 * One model turn, as a script: register the run (so /stop reaches it from the start), read the chat's config, admit
 * it (enabled, allowed, within budget), choose who answers, give the model the conversation, show what it does in
 * Telegram while the tally keeps count, then record the turn and hand its answer's delivery over to the chat's
 * ReplyTail (or say why there is none).
 */
export async function runTurn(ctx: ChatContext, request: TurnRequest): Promise<TurnOutcome> {
  const run = ctx.runs.begin(request.senders, request.burst);
  // The platform ends an alarm after 15 minutes and would run the turn again from the start: end it first.
  run.stopAfter(ctx.turnDeadline - ctx.now());
  try {
    return await turnOf(ctx, request, run);
  } finally {
    ctx.runs.end(run);
  }
}

async function turnOf(ctx: ChatContext, request: TurnRequest, run: ActiveRun): Promise<TurnOutcome> {
  const started = ctx.now();
  const { config, stored } = await effectiveConfigOf(ctx.configs, ctx.chat.id, ctx.settings);
  if (stored.state === "invalid") console.warn(`chat ${ctx.chat.id}: stored config invalid (${stored.problem})`);

  const admission = admit(ctx, request, { effective: config, stored }, started);
  if (admission.kind === "refused") return refuse(ctx, closedRequest(request, run), admission, started);

  const choice = chooseModel(ctx, request, config);
  if (choice.kind === "unavailable") {
    const error = internalError(choice.problem);
    const notice = notSetUpText(choice.provider, choice.problem, config.source.provider === "built-in");
    await ctx.outbox.notify(ctx.target, notice);
    const ended = closedRequest(request, run);
    recordTurn(ctx, { ...ended, users: usersWithoutFiles(ended.input) }, { kind: "failed", error }, undefined);
    return { ok: false, error };
  }

  const { tally, paid } = turnMeters(ctx.settings, config, {
    model: { provider: choice.provider, model: choice.model },
    spend: admission.spend,
  });
  // An agent's run is never started over: what joined the turn so far is all it answers.
  if (choice.adapter.kind === "agent") run.burst?.close();
  // Files are brought in only now: the turn is admitted and has a model to answer it (transcription is paid).
  const admitted: AdmittedTurn = { ...request, users: await usersOf(ctx, request.input, paid) };

  // The chat's MCP servers' tools join the registry for this turn (only servers the allowlist leaves a tool of).
  const mcp = await ctx.mcp(config, run.signal);
  try {
    const meter = {
      // The stored spend holds what helpers started meanwhile were given.
      spent: () => latestSpend(admission.spend, ctx.stores.meta.get(spendSlot)),
      tally,
      paid,
      budget: config.budget,
    };
    const policy = request.kind === "task" ? taskPolicy(ctx.settings, meter) : chatPolicy(ctx.settings, meter);
    const { turn, display, trust } = await converse(ctx, {
      conversation: {
        policy,
        request: admitted,
        config,
        adapter: choice.adapter,
        provider: choice.provider,
        model: choice.model,
        run,
        mcp,
        spend: admission.spend,
        tally,
        paid,
      },
      displayOptions: (answering) => displayOptions(ctx, answering, run, config),
    });
    // From here on /stop and remote tool calls find no running turn.
    ctx.runs.end(run);

    const cost = { tally, paid, spend: admission.spend, started, outside: trust.untrustedSource };
    const error = endingError(run.stopReason, tally, choice.provider);
    if (error) {
      await display.settle();
      console.warn(`chat ${ctx.chat.id}: turn failed (${error.classification}): ${redactSecrets(error.message)}`);
      const failedProvider = isProvider(tally.answeredBy.provider) ? tally.answeredBy.provider : choice.provider;
      const text = userFacingError(error, providerSetupOf(failedProvider, ctx.settings));
      await display.fail(
        error.classification === "cancelled" ? "⏹ (stopped)" : "⚠️ (interrupted)",
        request.failureNote ? `${request.failureNote} ${text}` : text,
      );
      recordTurn(ctx, turn, { kind: "failed", error }, cost);
      return { ok: false, error };
    }
    const result = tally.result ?? "";
    // A cut, refused or filtered answer says so (see answer-ending.ts).
    const { shown, kept } = answerEnding(result, tally.finish);
    // Recorded now; delivered while the chat's next turn starts (see answer-handover.ts).
    await finishAnswer(ctx, display, { turn, config, paid, shown, kept, steps: tally.steps, cost });
    return { ok: true, text: result };
  } finally {
    await mcp.close();
  }
}

function internalError(message: string): AgentErrorEvent {
  return { type: "error", classification: "internal", retryable: false, message };
}

function displayOptions(
  ctx: ChatContext,
  request: TurnRequest,
  run: ActiveRun,
  config: EffectiveConfig,
): TurnDisplayOptions {
  return {
    telegram: ctx.telegram,
    target: ctx.target,
    privateChat: ctx.chat.type === "private",
    interactive: request.kind !== "task",
    stream: ctx.settings.stream,
    ackReaction: ctx.settings.ackReaction,
    ...(request.messageId === undefined ? {} : { messageId: request.messageId }),
    ...(request.replyToMessageId === undefined ? {} : { replyToMessageId: request.replyToMessageId }),
    draftsRefused: ctx.stores.meta.get(draftsRefusedSlot) === true,
    onDraftsRefused: () => ctx.stores.meta.set(draftsRefusedSlot, true),
    stopData: `stop:${run.id}`,
    draftId: run.draftId,
    rich: richOptions(ctx, config),
    outbox: ctx.outbox,
    subrequests: ctx.subrequests,
  };
}

function richOptions(ctx: ChatContext, config: EffectiveConfig): RichOptions {
  const refused = ctx.stores.meta.get(richRefusedSlot);
  return {
    mode: config.richMessages,
    refused: refused !== undefined && refused.until > ctx.now(),
    onRefused: (description) => ctx.stores.meta.set(richRefusedSlot, richRefusal(description, ctx.now())),
    // Off by default in groups: a list of steps under every answer is noise to the others there.
    showSteps: config.showSteps ?? ctx.chat.type === "private",
  };
}
