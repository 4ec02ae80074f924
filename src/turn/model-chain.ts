import { type ChainLink, FallbackChain } from "../adapters/fallback-chain.ts";
import { createAdapter } from "../adapters/index.ts";
import type { Adapter } from "../adapters/types.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import type { TurnServices } from "./turn-services.ts";

/** Who answers the turn: the chat's own model, or the fallback the turn moved to. */
export interface Answering {
  provider: string;
  model: string;
}

/**
 * The adapter a turn calls: the chat's own, or, when the chat has fallbacks, a chain over it and every fallback whose
 * provider is ready here (a fallback without its key is skipped). `answering` follows the chain, and the chat is told
 * in one line when the turn moves on. An agent adapter owns its loop and is never chained.
 */
export function withFallbacks(input: {
  services: TurnServices;
  config: EffectiveConfig;
  adapter: Adapter;
  answering: Answering;
}): Adapter {
  const { services, config, adapter, answering } = input;
  if (adapter.kind !== "model" || config.fallbacks.length === 0) return adapter;
  const rest: ChainLink[] = [];
  for (const fallback of config.fallbacks) {
    const choice = createAdapter(fallback.provider, services.settings, services.env);
    if (choice.kind === "ready" && choice.adapter.kind === "model") {
      rest.push({ provider: fallback.provider, model: fallback.model, adapter: choice.adapter });
    }
  }
  if (rest.length === 0) return adapter;
  const first: ChainLink = { provider: answering.provider, model: answering.model, adapter };
  return new FallbackChain([first, ...rest], async ({ from, to, error }) => {
    answering.provider = to.provider;
    answering.model = to.model;
    console.warn(
      `chat ${services.chat.id}: ${from.model} failed (${error.classification}); falling back to ${to.model}`,
    );
    await services.telegram
      .sendPlain(services.target, `↪️ ${from.model} is ${reasonOf(error.classification)}; ${to.model} answers instead.`)
      .catch(() => undefined);
  });
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
