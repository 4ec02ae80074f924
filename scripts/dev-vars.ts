import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";

type Variables = Record<string, string | undefined>;

/** The variables in `.dev.vars` (the file wrangler dev reads secrets from), overridden by the process environment. */
export function localVariables(path = ".dev.vars"): Variables {
  const fromFile = existsSync(path) ? parseEnv(readFileSync(path, "utf8")) : {};
  return { ...fromFile, ...process.env };
}

/** Unset, or still a placeholder `.dev.vars.example` ships with. */
export function unset(value: string | undefined): boolean {
  return !value?.trim() || /replace-(with|me)/.test(value);
}

/** Whether a model can be reached: an OpenAI or Anthropic key, or Workers AI's URL with its token. */
export function hasModelKey(variables: Variables): boolean {
  return (
    !unset(variables.OPENAI_API_KEY) ||
    !unset(variables.ANTHROPIC_API_KEY) ||
    (!unset(variables.WORKERS_AI_BASE_URL) && !unset(variables.WORKERS_AI_API_TOKEN))
  );
}

/**
 * Whether web search is settled without a stand-in: a backend is configured (SEARXNG_URL, a Brave or Tavily key), or
 * WEB_SEARCH names one or is `off`. Otherwise `npm run dev` starts the stand-in search.
 */
export function hasSearchBackend(variables: Variables): boolean {
  return (
    !unset(variables.WEB_SEARCH) ||
    !unset(variables.SEARXNG_URL) ||
    !unset(variables.BRAVE_SEARCH_API_KEY) ||
    !unset(variables.TAVILY_API_KEY)
  );
}

/** What points the bot at the stand-in model (scripts/stand-in-model/), for chats and for speech and transcription. */
export function standInModelVars(url: string, model: string): Record<string, string> {
  // Transcription and speech go to OPENAI_BASE_URL too: the stand-in serves both, in its own way.
  return { OPENAI_BASE_URL: url, OPENAI_API_KEY: "stand-in", DEFAULT_PROVIDER: "openai", DEFAULT_MODEL: model };
}

/**
 * What points the bot at the stand-in search (scripts/stand-in-search/): it is the SearXNG instance, web_fetch may
 * read its pages on loopback (added to any WEB_FETCH_PRIVATE_HOSTS already set), and its searches cost nothing unless
 * SEARCH_PRICE_USD says otherwise (they are still counted against the caps).
 */
export function standInSearchVars(search: { url: string; host: string }, variables: Variables): Record<string, string> {
  const hosts = (variables.WEB_FETCH_PRIVATE_HOSTS ?? "")
    .split(",")
    .map((host) => host.trim())
    .filter((host) => host !== "");
  return {
    SEARXNG_URL: search.url,
    WEB_FETCH_PRIVATE_HOSTS: [...hosts, search.host].join(","),
    ...(unset(variables.SEARCH_PRICE_USD) ? { SEARCH_PRICE_USD: "0" } : {}),
  };
}
