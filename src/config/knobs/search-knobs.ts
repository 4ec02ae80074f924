import { custom, integer, onOff, readingOf, secret, url } from "../knob.ts";
import { ANTHROPIC_SEARCH_SETTINGS, WEB_SEARCH_CHOICES } from "../search-choices.ts";

const group = "Web search and fetch";

/** host:port pairs, lower-cased. */
function hostPorts(value: string) {
  return readingOf<ReadonlySet<string>>(
    new Set(
      value
        .split(",")
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ""),
    ),
  );
}

export const SEARCH_KNOBS = {
  WEB_SEARCH: custom<(typeof WEB_SEARCH_CHOICES)[number] | undefined>(
    {
      group,
      description:
        "`web_search`'s backend: `brave`, `tavily`, `searxng` or `off`; empty: the first configured of SearXNG, Brave, Tavily, else the tool is not offered",
    },
    {
      rule: `off, brave, tavily, searxng or empty`,
      fallback: undefined,
      read(value) {
        const chosen = WEB_SEARCH_CHOICES.find((option) => option === value.toLowerCase());
        return chosen === undefined
          ? { ok: false, problem: "must be off, brave, tavily, searxng or empty" }
          : readingOf<(typeof WEB_SEARCH_CHOICES)[number] | undefined>(chosen);
      },
    },
  ),
  SEARXNG_URL: url({
    group,
    description: "a self-hosted SearXNG instance (its JSON format enabled), for `web_search`",
  }),
  BRAVE_SEARCH_API_KEY: secret({ group, description: "Brave Search API key, for `web_search`" }),
  TAVILY_API_KEY: secret({ group, description: "Tavily API key, for `web_search`" }),
  BRAVE_SEARCH_BASE_URL: url(
    { kind: "variable", group, description: "Brave Search API root (fakes in tests); the key is sent there" },
    "https://api.search.brave.com",
  ),
  TAVILY_BASE_URL: url(
    { kind: "variable", group, description: "Tavily API root (fakes in tests); the key is sent there" },
    "https://api.tavily.com",
  ),
  WEB_SEARCH_RESULTS: integer(
    { group, description: "results one search gives the model" },
    { min: 1, max: 10, fallback: 5 },
  ),
  ANTHROPIC_WEB_SEARCH: custom<(typeof ANTHROPIC_SEARCH_SETTINGS)[number]>(
    {
      group,
      description:
        "`off`, `on`, or a tool version (`web_search_20260209`): Anthropic chats search with Anthropic's server-side tool instead of `web_search`, under the same caps",
    },
    {
      rule: `off, on or one of ${ANTHROPIC_SEARCH_SETTINGS.slice(2).join(", ")}`,
      fallback: "off",
      shownDefault: "off",
      read(value) {
        const chosen = ANTHROPIC_SEARCH_SETTINGS.find((option) => option === value.toLowerCase());
        return chosen === undefined
          ? { ok: false, problem: `must be off, on or one of ${ANTHROPIC_SEARCH_SETTINGS.slice(2).join(", ")}` }
          : readingOf<(typeof ANTHROPIC_SEARCH_SETTINGS)[number]>(chosen);
      },
    },
  ),
  WEB_FETCH: onOff({ group, description: "offer `web_fetch` at all" }, true),
  WEB_FETCH_PRIVATE_HOSTS: custom(
    {
      kind: "variable",
      group,
      description:
        "dev only: `host:port` pairs `web_fetch` may reach although they are private (a page served on this machine); leave empty deployed",
    },
    { rule: "comma-separated host:port pairs", fallback: new Set<string>(), read: hostPorts },
  ),
} as const;
