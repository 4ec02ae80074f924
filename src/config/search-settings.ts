import type { Env } from "../env.ts";
import type { EnvReader } from "./env-reader.ts";

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

/** The versions of Anthropic's server-side web search tool this bot knows (the Messages API's `type`). */
const ANTHROPIC_SEARCH_TOOLS = ["web_search_20250305", "web_search_20260209", "web_search_20260318"] as const;
export type AnthropicSearchTool = (typeof ANTHROPIC_SEARCH_TOOLS)[number];

/** Anthropic's own server-side search for Anthropic chats, as a tool version, or off. */
export type AnthropicWebSearch = { kind: "off" } | { kind: "on"; toolType: AnthropicSearchTool; priceUsd: number };

const BACKENDS = ["brave", "tavily", "searxng"] as const;
const DEFAULT_ANTHROPIC_TOOL: AnthropicSearchTool = "web_search_20250305";

/**
 * WEB_SEARCH names the backend ("off", "brave", "tavily", "searxng"); empty picks the first one configured
 * (SEARXNG_URL, then BRAVE_SEARCH_API_KEY, then TAVILY_API_KEY). A named backend without what it needs is a problem
 * /health reports, and the tool is not offered.
 */
export function webSearchOf(read: EnvReader, env: Env): WebSearchSettings {
  const results = read.integer("WEB_SEARCH_RESULTS", 5, 1, 10);
  const searxng = read.url("SEARXNG_URL");
  const brave = read.text(env.BRAVE_SEARCH_API_KEY);
  const tavily = read.text(env.TAVILY_API_KEY);
  const braveUrl = read.url("BRAVE_SEARCH_BASE_URL") ?? "https://api.search.brave.com";
  const tavilyUrl = read.url("TAVILY_BASE_URL") ?? "https://api.tavily.com";
  const configured = {
    searxng: searxng === undefined ? undefined : ({ kind: "searxng", url: searxng } as const),
    brave: brave === undefined ? undefined : ({ kind: "brave", apiKey: brave, baseUrl: braveUrl } as const),
    tavily: tavily === undefined ? undefined : ({ kind: "tavily", apiKey: tavily, baseUrl: tavilyUrl } as const),
  };
  const chosen = read.text(env.WEB_SEARCH)?.toLowerCase();
  if (chosen === undefined) {
    return { backend: configured.searxng ?? configured.brave ?? configured.tavily, results };
  }
  if (chosen === "off") return { backend: undefined, results };
  const name = BACKENDS.find((backend) => backend === chosen);
  if (name === undefined) {
    read.problems.push(`WEB_SEARCH must be off, ${BACKENDS.join(", ")} or empty`);
    return { backend: undefined, results };
  }
  const backend = configured[name];
  if (backend === undefined) {
    const needs = { searxng: "SEARXNG_URL", brave: "BRAVE_SEARCH_API_KEY", tavily: "TAVILY_API_KEY" }[name];
    read.problems.push(`WEB_SEARCH is ${name} but ${needs} is not set: web_search is not offered`);
  }
  return { backend, results };
}

/** ANTHROPIC_WEB_SEARCH: "off" (default), "on" (the 2025-03-05 tool) or a tool version such as web_search_20260209. */
export function anthropicWebSearchOf(read: EnvReader, env: Env): AnthropicWebSearch {
  const raw = read.text(env.ANTHROPIC_WEB_SEARCH)?.toLowerCase() ?? "off";
  const priceUsd = read.number("ANTHROPIC_WEB_SEARCH_PRICE_USD", 0.01, 100);
  if (raw === "off") return { kind: "off" };
  if (raw === "on") return { kind: "on", toolType: DEFAULT_ANTHROPIC_TOOL, priceUsd };
  const version = ANTHROPIC_SEARCH_TOOLS.find((tool) => tool === raw);
  if (version !== undefined) return { kind: "on", toolType: version, priceUsd };
  read.problems.push(`ANTHROPIC_WEB_SEARCH must be off, on or one of ${ANTHROPIC_SEARCH_TOOLS.join(", ")}`);
  return { kind: "off" };
}
