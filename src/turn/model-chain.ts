import { type ChainLink, FallbackChain } from "../adapters/fallback-chain.ts";
import { createAdapter } from "../adapters/index.ts";
import type { Adapter } from "../adapters/types.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import { DEFAULT_MODELS, type Provider } from "../config/providers.ts";
import { bestEffort } from "../lib/best-effort.ts";
import type { ChatContext } from "./chat-context.ts";
import type { TurnRequest } from "./turn-request.ts";

/** Who answers a turn: the adapter to call (a fallback chain over the chat's models, where it has one), or why none can. */
export type ModelChoice =
  | {
      kind: "ready";
      /** The chat's own provider and model: usage without a model of its own is recorded under them. */
      provider: Provider;
      model: string;
      /** An agent adapter is never chained, so `adapter.kind` is the provider's own. */
      adapter: Adapter;
    }
  | { kind: "unavailable"; provider: Provider; problem: string };

/**
 * The turn's provider and model (`/agent` names its own provider), and its adapter: the chat's own, or, when the chat
 * has fallbacks, a chain over it and every fallback whose provider is ready here (a fallback without its key is
 * skipped). The chat is told in one line when the turn moves on. An agent adapter owns its loop and is never chained.
 */
export function chooseModel(ctx: ChatContext, request: TurnRequest, config: EffectiveConfig): ModelChoice {
  const provider = request.providerOverride ?? config.provider;
  const model = provider === config.provider ? config.model : DEFAULT_MODELS[provider];
  const choice = createAdapter(provider, ctx.adapters);
  if (choice.kind === "unavailable") return { kind: "unavailable", provider, problem: choice.problem };
  const own = choice.adapter;
  const adapter = request.providerOverride ? own : withFallbacks(ctx, config, { provider, model, own });
  return { kind: "ready", provider, model, adapter };
}

/**
 * The chat's model with its fallbacks, and last the provider's default model, taken only when a model before it is not
 * served any more (retired): the chat then goes on, told so in one line, and /health names the retired model.
 */
function withFallbacks(
  ctx: ChatContext,
  config: EffectiveConfig,
  first: { provider: Provider; model: string; own: Adapter },
): Adapter {
  const { own } = first;
  if (own.kind !== "model") return own;
  const rest: ChainLink[] = [];
  for (const fallback of config.fallbacks) {
    const choice = createAdapter(fallback.provider, ctx.adapters);
    if (choice.kind === "ready" && choice.adapter.kind === "model") {
      rest.push({ provider: fallback.provider, model: fallback.model, adapter: choice.adapter });
    }
  }
  // The deployment's default model where it is for this provider, else the provider's built-in one.
  const { defaultProvider, defaultModel } = ctx.settings;
  const providerDefault =
    defaultProvider === first.provider && defaultModel ? defaultModel : DEFAULT_MODELS[first.provider];
  if (first.model !== providerDefault && !rest.some((link) => link.model === providerDefault)) {
    rest.push({ provider: first.provider, model: providerDefault, adapter: own, onlyWhenGone: true });
  }
  if (rest.length === 0) return own;
  return new FallbackChain([{ provider: first.provider, model: first.model, adapter: own }, ...rest], async (move) => {
    const { from, to, error } = move;
    console.warn(`chat ${ctx.chat.id}: ${from.model} failed (${error.classification}); falling back to ${to.model}`);
    if (error.modelGone) {
      await bestEffort("recording a retired model", () =>
        ctx.retiredModels.report({
          provider: from.provider,
          model: from.model,
          fellBackTo: `${to.provider}:${to.model}`,
          at: ctx.now(),
        }),
      );
    }
    await ctx.outbox.notify(ctx.target, fallbackLine(from.model, to.model, error));
  });
}

function fallbackLine(from: string, to: string, error: { classification: string; modelGone: boolean }): string {
  if (error.modelGone) {
    return `↪️ ${from} is no longer offered by its provider (retired); ${to} answers instead. An admin can choose another model with /model.`;
  }
  return `↪️ ${from} is ${reasonOf(error.classification)}; ${to} answers instead.`;
}

function reasonOf(classification: string): string {
  switch (classification) {
    case "overloaded":
      return "overloaded";
    case "quota":
      return "rate-limited";
    case "timeout":
      return "not answering in time";
    default:
      return "unreachable";
  }
}
