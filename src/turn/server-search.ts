import type { ModelRequest, ProviderTool } from "../adapters/types.ts";
import { allowance, type PaidCallGate } from "../budget/paid-calls.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import { allowlistAllows } from "../config/mcp-servers.ts";
import type { AnthropicSearchTool } from "../config/search-settings.ts";
import type { Settings } from "../config/settings.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { TurnTrust } from "../tools/context.ts";

/** The most searches one model call may make on the provider's servers, before the caps narrow it. */
const MAX_USES_PER_CALL = 10;

/** Anthropic's server-side search, for this turn: its tool version and price, or undefined when it is not used. */
export interface ServerSearch {
  toolType: AnthropicSearchTool;
  priceUsd: number;
}

/**
 * Anthropic chats use Anthropic's own web search when ANTHROPIC_WEB_SEARCH is on and the chat's allowlist lets it
 * search: it takes the place of `web_search` (both are named web_search, and a request may not name a tool twice).
 */
export function serverSearchOf(
  settings: Settings,
  config: EffectiveConfig,
  adapterKind: "model" | "agent",
): ServerSearch | undefined {
  const search = settings.anthropicWebSearch;
  if (search.kind === "off" || adapterKind !== "model" || config.provider !== "anthropic") return undefined;
  if (!allowlistAllows(config.tools, "web_search")) return undefined;
  return { toolType: search.toolType, priceUsd: search.priceUsd };
}

/**
 * Each call carries the provider's search as one of its tools, allowed as many searches as the caps and the day's
 * budget still allow (none: the tool is left out).
 */
export function withServerSearch(search: ServerSearch, paid: PaidCallGate): (request: ModelRequest) => ModelRequest {
  return (request) => {
    const maxUses = allowance(paid, "search", MAX_USES_PER_CALL);
    if (maxUses <= 0) return request;
    const tool: ProviderTool = { kind: "provider", id: "anthropic.web_search", version: search.toolType, maxUses };
    return { ...request, tools: [...request.tools, tool] };
  };
}

/**
 * A call's server searches are paid for and were read by the model: they are recorded (at Anthropic's price) and the
 * turn is marked untrusted as the call's usage arrives, before any tool that call asked for runs.
 */
export async function* meteredServerSearches(
  events: AsyncGenerator<AgentEvent>,
  meter: { search: ServerSearch; paid: PaidCallGate; trust: TurnTrust },
): AsyncGenerator<AgentEvent> {
  for await (const event of events) {
    if (event.type === "usage" && event.webSearches !== undefined && event.webSearches > 0) {
      meter.trust.markUntrusted("web search results");
      meter.paid.record("search", event.webSearches, event.webSearches * meter.search.priceUsd);
    }
    yield event;
  }
}
