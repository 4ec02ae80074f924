import type { AnthropicSearchTool } from "./search-choices.ts";
import type { SettingValues } from "./settings-schema.ts";

/** Where `web_search` asks: a hosted API with its key, or a self-hosted SearXNG instance (its JSON format). */
export type WebSearchBackend =
  | { kind: "brave"; apiKey: string; baseUrl: string }
  | { kind: "tavily"; apiKey: string; baseUrl: string }
  | { kind: "searxng"; url: string };

export interface WebSearchSettings {
  /** Undefined: `web_search` is not offered. */
  backend: WebSearchBackend | undefined;
  /** Results per search. */
  results: number;
}

export type { AnthropicSearchTool };

/** Anthropic's own server-side search for Anthropic chats, as a tool version, or off. */
export type AnthropicWebSearch = { kind: "off" } | { kind: "on"; toolType: AnthropicSearchTool; priceUsd: number };

const DEFAULT_ANTHROPIC_TOOL: AnthropicSearchTool = "web_search_20250305";

/**
 * WEB_SEARCH names the backend ("off", "brave", "tavily", "searxng"); empty picks the first one configured
 * (SEARXNG_URL, then BRAVE_SEARCH_API_KEY, then TAVILY_API_KEY). A named backend without what it needs is a problem
 * /health reports, and the tool is not offered.
 */
export function webSearchOf(values: SettingValues, problems: string[]): WebSearchSettings {
  const results = values.WEB_SEARCH_RESULTS;
  const searxng = values.SEARXNG_URL;
  const brave = values.BRAVE_SEARCH_API_KEY;
  const tavily = values.TAVILY_API_KEY;
  const configured = {
    searxng: searxng === undefined ? undefined : ({ kind: "searxng", url: searxng } as const),
    brave:
      brave === undefined
        ? undefined
        : ({
            kind: "brave",
            apiKey: brave,
            baseUrl: values.BRAVE_SEARCH_BASE_URL ?? "https://api.search.brave.com",
          } as const),
    tavily:
      tavily === undefined
        ? undefined
        : ({ kind: "tavily", apiKey: tavily, baseUrl: values.TAVILY_BASE_URL ?? "https://api.tavily.com" } as const),
  };
  const chosen = values.WEB_SEARCH;
  if (chosen === undefined) {
    return { backend: configured.searxng ?? configured.brave ?? configured.tavily, results };
  }
  if (chosen === "off") return { backend: undefined, results };
  const backend = configured[chosen];
  if (backend === undefined) {
    const needs = { searxng: "SEARXNG_URL", brave: "BRAVE_SEARCH_API_KEY", tavily: "TAVILY_API_KEY" }[chosen];
    problems.push(`WEB_SEARCH is ${chosen} but ${needs} is not set: web_search is not offered`);
  }
  return { backend, results };
}

/** ANTHROPIC_WEB_SEARCH: "off" (default), "on" (the 2025-03-05 tool) or a tool version such as web_search_20260209. */
export function anthropicWebSearchOf(values: SettingValues): AnthropicWebSearch {
  const chosen = values.ANTHROPIC_WEB_SEARCH;
  const priceUsd = values.ANTHROPIC_WEB_SEARCH_PRICE_USD;
  if (chosen === "off") return { kind: "off" };
  return { kind: "on", toolType: chosen === "on" ? DEFAULT_ANTHROPIC_TOOL : chosen, priceUsd };
}
