/** What WEB_SEARCH may name: a backend, or off. */
export const WEB_SEARCH_CHOICES = ["off", "brave", "tavily", "searxng"] as const;

/** The versions of Anthropic's server-side web search tool this bot knows (the Messages API's `type`). */
const ANTHROPIC_SEARCH_TOOLS = ["web_search_20250305", "web_search_20260209", "web_search_20260318"] as const;
export type AnthropicSearchTool = (typeof ANTHROPIC_SEARCH_TOOLS)[number];

/** What ANTHROPIC_WEB_SEARCH may say: off, on (the first tool version), or a version. */
export const ANTHROPIC_SEARCH_SETTINGS = ["off", "on", ...ANTHROPIC_SEARCH_TOOLS] as const;
