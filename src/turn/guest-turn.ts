import { functionTools } from "../adapters/request-tools.ts";
import type { ModelAdapter } from "../adapters/types.ts";
import { latestSpend } from "../budget/budget.ts";
import type { PaidCalls } from "../budget/paid-calls.ts";
import { type DailySpend, spendSlot } from "../budget/spend-slot.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import { effectiveConfigOf } from "../config/config-store.ts";
import { providerSetupOf } from "../config/provider-setup.ts";
import type { Provider } from "../config/providers.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { errorText } from "../lib/errors.ts";
import { redactSecrets } from "../lib/redact.ts";
import type { AgentErrorEvent } from "../protocol/events.ts";
import { userFacingError } from "../reply/error-text.ts";
import { NO_SKILLS } from "../skills/skill.ts";
import type { GuestQuery } from "../telegram/incoming-message.ts";
import { renderOne, renderPieces } from "../telegram/render.ts";
import { TELEGRAM_MESSAGE_LIMIT } from "../telegram/split.ts";
import { TurnTrust } from "../tools/context.ts";
import type { ActiveRun } from "./active-run.ts";
import { type Admission, admit } from "./admission.ts";
import { answerEnding } from "./answer-ending.ts";
import type { ChatContext } from "./chat-context.ts";
import { drain } from "./engine/drain.ts";
import { armTools, runEngine } from "./engine/turn-engine.ts";
import { turnPrompt } from "./engine/turn-prompt.ts";
import { endingError } from "./engine/turn-stop.ts";
import { turnTools } from "./engine/turn-tools.ts";
import { chooseModel } from "./model-chain.ts";
import { guestPolicy } from "./policies/guest-policy.ts";
import { recordGuestTurn, type TurnCost } from "./record.ts";
import type { Tally } from "./tally.ts";
import { toolContext } from "./tool-context.ts";
import { turnMeters } from "./turn-meters.ts";
import type { TurnRequest } from "./turn-request.ts";

const CUT_NOTE = "… (cut: the whole answer was longer than one message)";
const QUOTE_LIMIT = 1000;

/**
 * A guest query, answered in its summoner's own chat object with that chat's settings, provider and daily budget:
 * one non-streamed answer from the text it was given (and the message it was summoned under), posted with
 * `answerGuestQuery`. Nothing of the other chat is kept: no history, no directory entry, an emptied inbox row; only
 * the usage record and the day's spend, under kind `guest`. A refusal (disabled, over budget, no provider) or a
 * failure is answered in one line, since the summoner is someone the bot knows.
 */
export async function answerGuestQuery(ctx: ChatContext, inboxId: number, query: GuestQuery): Promise<void> {
  const started = ctx.now();
  const request: TurnRequest = {
    kind: "guest",
    input: { kind: "ready", users: [] },
    inboxIds: [inboxId],
    senders: [query.from.id],
  };
  const answer = async (markdown: string): Promise<boolean> =>
    bestEffort("answering a guest query", () => ctx.telegram.answerGuest(query.queryId, guestPiece(markdown)));
  const failed = async (error: AgentErrorEvent, text: string, cost?: TurnCost) => {
    await answer(text);
    recordGuestTurn(ctx, request, { kind: "failed", error }, cost);
  };

  const { config, stored } = await effectiveConfigOf(ctx.configs, ctx.chat.id, ctx.settings);
  const admission = admit(ctx, request, { effective: config, stored }, started);
  if (admission.kind === "refused") {
    const text = GUEST_REFUSALS[admission.reason];
    return failed({ type: "error", classification: "quota", retryable: false, message: admission.reason }, text);
  }
  if (query.text === "" && query.replyTo === undefined) {
    recordGuestTurn(ctx, request, { kind: "answered", text: "", delivered: await answer(EMPTY_HINT) }, undefined);
    return;
  }
  // An agent in a container is not summoned into other chats: its Claude model answers through the Messages API.
  const guestConfig = config.provider === "claude-agent" ? { ...config, provider: "anthropic" as const } : config;
  const choice = chooseModel(ctx, request, guestConfig);
  if (choice.kind === "unavailable" || choice.adapter.kind !== "model") {
    const problem = choice.kind === "unavailable" ? choice.problem : "no model answers guest queries";
    return failed(
      { type: "error", classification: "internal", retryable: false, message: problem },
      `⚠️ I cannot answer here: ${problem}.`,
    );
  }

  const run = ctx.runs.begin([query.from.id]);
  run.stopAfter(ctx.turnDeadline - ctx.now());
  const { tally, paid } = turnMeters(ctx.settings, config, {
    model: { provider: choice.provider, model: choice.model },
    spend: admission.spend,
  });
  const cost: TurnCost = { tally, paid, spend: admission.spend, started, outside: undefined };
  try {
    await guestTurn(ctx, query, {
      config,
      adapter: choice.adapter,
      provider: choice.provider,
      model: choice.model,
      run,
      tally,
      paid,
      spend: admission.spend,
    });
  } finally {
    ctx.runs.end(run);
  }

  const error = endingError(run.stopReason, tally, choice.provider);
  if (error) {
    console.warn(`guest query of ${query.from.id} failed (${error.classification}): ${redactSecrets(error.message)}`);
    return failed(error, userFacingError(error, providerSetupOf(choice.provider, ctx.settings)), cost);
  }
  const text = answerEnding(tally.result ?? "", tally.finish).shown;
  const delivered = await ctx.telegram
    .answerGuest(query.queryId, guestPiece(text))
    .then(() => true)
    .catch((thrown: unknown) => {
      console.warn(`answering a guest query failed: ${redactSecrets(errorText(thrown))}`);
      return false;
    });
  recordGuestTurn(ctx, request, { kind: "answered", text, delivered }, cost);
}

/** The guest's one turn: the engine under the guest policy, from the query alone, fed to the tally. */
async function guestTurn(
  ctx: ChatContext,
  query: GuestQuery,
  turn: {
    config: EffectiveConfig;
    adapter: ModelAdapter;
    provider: Provider;
    model: string;
    run: ActiveRun;
    tally: Tally;
    paid: PaidCalls;
    spend: DailySpend;
  },
): Promise<void> {
  const { config, run, tally, paid } = turn;
  const policy = guestPolicy(ctx.settings, {
    name: query.from.name,
    budget: {
      spent: () => latestSpend(turn.spend, ctx.stores.meta.get(spendSlot)),
      tally,
      paid,
      budget: config.budget,
    },
  });
  const { modelTools, toolNames } = turnTools({
    policy,
    registry: ctx.registry,
    allowlist: config.tools,
    settings: ctx.settings,
    adapterKind: "model",
    skills: NO_SKILLS,
    serverSearch: false,
  });
  const context = toolContext(ctx, {
    senders: [query.from.id],
    trust: new TurnTrust(policy.untrusted),
    timezone: config.timezone,
    paid,
  });
  armTools(run, policy, (name, argumentsText) => ctx.registry.execute(name, argumentsText, context, config.tools));
  const system = turnPrompt({
    policy,
    facts: {
      botName: ctx.settings.botName,
      ...(config.systemPrompt ? { chatPrompt: config.systemPrompt } : {}),
      chat: { type: query.chatType, isForumTopic: false },
      now: new Date(ctx.now()),
      timezone: config.timezone,
    },
    toolNames,
    skillText: "",
  });
  const events = runEngine({
    policy,
    adapter: turn.adapter,
    run,
    request: {
      model: turn.model,
      system,
      messages: [{ role: "user", content: guestMessage(query) }],
      tools: functionTools(modelTools),
      signal: run.signal,
    },
  });
  await drain(events, tally, turn.provider);
}

const GUEST_REFUSALS: Record<Extract<Admission, { kind: "refused" }>["reason"], string> = {
  budget: "⏳ My daily budget for you is spent; ask me again tomorrow.",
  disabled: "⏸ I am turned off for you at the moment.",
  "not allowed": "⏸ I am turned off for you at the moment.",
  "config invalid": "⚠️ My settings for you are invalid; the bot's owner has to fix them first.",
};

const EMPTY_HINT = "Ask me something: write your question after my name, or summon me in reply to a message.";

/** What the model reads: the message the bot was summoned under (quoted, bounded), then the summoner's words. */
function guestMessage(query: GuestQuery): string {
  const lines: string[] = [];
  if (query.replyTo) {
    const quoted =
      query.replyTo.text.length > QUOTE_LIMIT ? `${query.replyTo.text.slice(0, QUOTE_LIMIT)}…` : query.replyTo.text;
    lines.push(`[in reply to ${query.replyTo.fromName ?? "a message"}: "${quoted}"]`);
  }
  lines.push(`${query.from.name}: ${query.text === "" ? "(no words: answer the message above)" : query.text}`);
  return lines.join("\n");
}

/** An inline result's message holds one Telegram message: a longer answer is cut there, and says so. */
function guestPiece(markdown: string) {
  const pieces = renderPieces(markdown, TELEGRAM_MESSAGE_LIMIT - CUT_NOTE.length - 4);
  if (pieces.length <= 1) return pieces[0] ?? renderOne(markdown);
  return renderOne(`${pieces[0]!.piece}\n\n${CUT_NOTE}`);
}
