import * as z from "zod";
import type { WebSearchBackend } from "../config/search-settings.ts";
import { errorText } from "../lib/errors.ts";

/** One web result, as the model is shown it: few fields, each short. */
export interface WebResult {
  title: string;
  url: string;
  /** When the page was published or last changed, as the backend gives it (absent when it gives none). */
  date?: string;
  snippet: string;
}

/** A search that failed: the backend refused it, did not answer, or answered in a shape this bot does not read. */
export class WebSearchError extends Error {
  override readonly name = "WebSearchError";
}

const TIMEOUT_MS = 15_000;
const TITLE_MAX = 200;
const SNIPPET_MAX = 300;

/** Asks the configured backend for `count` results. Throws `WebSearchError` (never with the key in its message). */
export async function searchWeb(
  backend: WebSearchBackend,
  query: string,
  options: { count: number; signal?: AbortSignal },
): Promise<WebResult[]> {
  const signal = options.signal
    ? AbortSignal.any([options.signal, AbortSignal.timeout(TIMEOUT_MS)])
    : AbortSignal.timeout(TIMEOUT_MS);
  const { label, request, parse } = requestFor(backend, query, options.count);
  let response: Response;
  try {
    response = await fetch(request, { signal });
  } catch (error) {
    if (signal.aborted) throw new WebSearchError(`${label} did not answer within ${TIMEOUT_MS / 1000} s.`);
    throw new WebSearchError(`${label} could not be reached: ${errorText(error)}`);
  }
  const text = await response.text();
  if (backend.kind === "searxng" && response.status === 403) {
    throw new WebSearchError(
      "SearXNG refused the JSON format (403): its settings.yml must list json in search.formats.",
    );
  }
  if (!response.ok) throw new WebSearchError(`${label} answered ${response.status}: ${refusalOf(text)}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WebSearchError(`${label} did not answer with JSON.`);
  }
  const results = parse(json);
  if (results === undefined) throw new WebSearchError(`${label} answered in a shape this bot does not read.`);
  return tidy(results).slice(0, options.count);
}

interface BackendCall {
  label: string;
  request: Request;
  /** The results, or undefined when the body is not the backend's answer. */
  parse: (json: unknown) => WebResult[] | undefined;
}

function requestFor(backend: WebSearchBackend, query: string, count: number): BackendCall {
  switch (backend.kind) {
    case "brave": {
      // GET /res/v1/web/search: `q`, `count` (at most 20), plain text without <strong> decorations.
      const url = new URL(`${backend.baseUrl}/res/v1/web/search`);
      url.search = new URLSearchParams({ q: query, count: String(count), text_decorations: "false" }).toString();
      return {
        label: "Brave Search",
        request: new Request(url, {
          headers: { accept: "application/json", "x-subscription-token": backend.apiKey },
        }),
        parse: (json) => {
          const parsed = braveSchema.safeParse(json);
          if (!parsed.success) return undefined;
          return (parsed.data.web?.results ?? []).map((result) => ({
            title: result.title,
            url: result.url,
            snippet: result.description ?? "",
            ...dated(result.page_age ?? result.age),
          }));
        },
      };
    }
    case "tavily":
      // POST /search with a bearer key; `published_date` comes with news results only.
      return {
        label: "Tavily",
        request: new Request(`${backend.baseUrl}/search`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${backend.apiKey}` },
          body: JSON.stringify({ query, max_results: count, search_depth: "basic", include_answer: false }),
        }),
        parse: (json) => {
          const parsed = tavilySchema.safeParse(json);
          if (!parsed.success) return undefined;
          return parsed.data.results.map((result) => ({
            title: result.title,
            url: result.url,
            snippet: result.content ?? "",
            ...dated(result.published_date),
          }));
        },
      };
    case "searxng": {
      // GET /search?format=json: only answered when the instance lists json in search.formats (else 403).
      const url = new URL(`${backend.url}/search`);
      url.search = new URLSearchParams({ q: query, format: "json", pageno: "1" }).toString();
      return {
        label: "SearXNG",
        request: new Request(url, { headers: { accept: "application/json" } }),
        parse: (json) => {
          const parsed = searxngSchema.safeParse(json);
          if (!parsed.success) return undefined;
          return parsed.data.results.map((result) => ({
            title: result.title ?? result.url,
            url: result.url,
            snippet: result.content ?? "",
            ...dated(result.publishedDate),
          }));
        },
      };
    }
  }
}

// Only the fields shown are read; anything else the backends add is ignored.
const braveSchema = z.object({
  web: z
    .object({
      results: z.array(
        z.object({
          title: z.string(),
          url: z.string(),
          description: z.string().optional(),
          age: z.string().optional(),
          page_age: z.string().optional(),
        }),
      ),
    })
    .optional(),
});

const tavilySchema = z.object({
  results: z.array(
    z.object({
      title: z.string(),
      url: z.string(),
      content: z.string().nullish(),
      published_date: z.string().nullish(),
    }),
  ),
});

const searxngSchema = z.object({
  results: z.array(
    z.object({
      url: z.string(),
      title: z.string().nullish(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
    }),
  ),
});

function dated(date: string | null | undefined): { date?: string } {
  const text = date?.trim();
  if (!text) return {};
  // ISO timestamps are cut to the day; a backend's own wording ("3 days ago") is kept.
  return { date: /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : text.slice(0, 40) };
}

/** http(s) results only, each URL once, titles and snippets as plain single-line text, cut short. */
function tidy(results: WebResult[]): WebResult[] {
  const seen = new Set<string>();
  const kept: WebResult[] = [];
  for (const result of results) {
    if (!/^https?:\/\//i.test(result.url) || seen.has(result.url)) continue;
    seen.add(result.url);
    kept.push({
      ...result,
      title: cut(plain(result.title), TITLE_MAX) || result.url,
      snippet: cut(plain(result.snippet), SNIPPET_MAX),
    });
  }
  return kept;
}

function plain(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_entity, name: string) => ENTITIES[name] ?? " ")
    .replace(/\s+/g, " ")
    .trim();
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The backend's own words for a refusal, from its JSON error (Brave's `error.detail`, Tavily's `detail.error`). */
function refusalOf(body: string): string {
  try {
    const parsed = refusalSchema.safeParse(JSON.parse(body));
    if (parsed.success) {
      const { error, detail } = parsed.data;
      const words = (typeof error === "object" ? error?.detail : error) ?? detail?.error;
      if (words) return cut(words, 300);
    }
  } catch {
    // Not JSON (SearXNG answers HTML): its first words.
  }
  return cut(plain(body), 200) || "no details";
}

const refusalSchema = z.object({
  error: z.union([z.string(), z.object({ detail: z.string().optional() })]).optional(),
  detail: z.object({ error: z.string().optional() }).optional(),
});
