/**
 * The fake search backends behind `/search/...` on the fakes' server: Brave's web search
 * (`/search/brave/res/v1/web/search`), Tavily (`/search/tavily/search`) and a SearXNG instance
 * (`/search/searxng/search`). Unscripted, each answers as the real service does: Brave and Tavily refuse a missing
 * or wrong key with their own words, SearXNG refuses any format but json with Flask's 403 page, and a good request
 * gets three results made from the query. Tests script other answers (`fakes.script("search", { path, ... })`).
 */

/** The keys the fakes accept; the Worker's test environment is given them. */
export const FAKE_BRAVE_KEY = "test-brave-key";
export const FAKE_TAVILY_KEY = "test-tavily-key";

export interface FakeAnswer {
  status: number;
  body?: unknown;
  text?: string;
  contentType?: string;
}

export function searchDefault(path: string, query: URLSearchParams, headers: Headers, body: unknown): FakeAnswer {
  if (path === "/search/brave/res/v1/web/search") return brave(query, headers);
  if (path === "/search/tavily/search") return tavily(headers, body);
  if (path === "/search/searxng/search") return searxng(query);
  return { status: 404, body: { error: "unknown fake search path" } };
}

function brave(query: URLSearchParams, headers: Headers): FakeAnswer {
  const token = headers.get("x-subscription-token");
  if (token === null)
    return braveError("VALIDATION", "Unable to validate request parameter(s).", ["header", "x-subscription-token"]);
  if (token !== FAKE_BRAVE_KEY) {
    return {
      status: 422,
      body: {
        type: "ErrorResponse",
        error: {
          id: "5d832250-9396-4f6e-b84a-2a1fe524cd7d",
          status: 422,
          code: "SUBSCRIPTION_TOKEN_INVALID",
          detail: "The provided subscription token is invalid.",
          meta: { component: "authentication" },
        },
        time: Math.floor(Date.now() / 1000),
      },
    };
  }
  const q = query.get("q");
  if (!q) return braveError("VALIDATION", "Unable to validate request parameter(s).", ["query", "q"]);
  const count = Number(query.get("count") ?? 20);
  if (!Number.isInteger(count) || count < 1 || count > 20) {
    return braveError("VALIDATION", "Unable to validate request parameter(s).", ["query", "count"]);
  }
  return {
    status: 200,
    body: {
      type: "search",
      query: { original: q },
      web: {
        type: "search",
        results: made(q, count).map((result) => ({
          type: "search_result",
          title: result.title,
          url: result.url,
          description: result.snippet,
          page_age: "2026-11-20T08:00:00",
          age: "2 days ago",
          meta_url: { hostname: "example.com" },
        })),
      },
    },
  };
}

function braveError(code: string, detail: string, loc: string[]): FakeAnswer {
  return {
    status: 422,
    body: {
      type: "ErrorResponse",
      error: {
        id: "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
        status: 422,
        code,
        detail,
        meta: { errors: [{ type: "missing", loc, msg: "Field required" }] },
      },
      time: Math.floor(Date.now() / 1000),
    },
  };
}

function tavily(headers: Headers, body: unknown): FakeAnswer {
  if (headers.get("authorization") !== `Bearer ${FAKE_TAVILY_KEY}`) {
    return { status: 401, body: { detail: { error: "Unauthorized: missing or invalid API key." } } };
  }
  const request = (body ?? {}) as { query?: unknown; max_results?: unknown };
  const q = typeof request.query === "string" ? request.query : "";
  const count = typeof request.max_results === "number" ? request.max_results : 5;
  return {
    status: 200,
    body: {
      query: q,
      answer: null,
      images: [],
      results: made(q, count).map((result) => ({
        title: result.title,
        url: result.url,
        content: result.snippet,
        score: 0.9,
        raw_content: null,
      })),
      response_time: 0.4,
    },
  };
}

function searxng(query: URLSearchParams): FakeAnswer {
  // An instance answers formats other than html only when settings.yml lists them; this one lists json.
  if (query.get("format") !== "json") {
    return {
      status: 403,
      contentType: "text/html; charset=utf-8",
      text:
        "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n" +
        "<p>You don&#39;t have the permission to access the requested resource. It is either read-protected or not " +
        "readable by the server.</p>\n",
    };
  }
  const q = query.get("q") ?? "";
  return {
    status: 200,
    body: {
      query: q,
      number_of_results: 0,
      results: made(q, 3).map((result, index) => ({
        url: result.url,
        title: result.title,
        content: result.snippet,
        engine: "duckduckgo",
        engines: ["duckduckgo"],
        score: 1 / (index + 1),
        category: "general",
        publishedDate: index === 0 ? "2026-11-19T00:00:00" : null,
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    },
  };
}

/** Results made from the query, so a test can tell which search they answer. */
function made(query: string, count: number): { title: string; url: string; snippet: string }[] {
  return Array.from({ length: Math.min(count, 3) }, (_, index) => ({
    title: `Result ${index + 1} for ${query}`,
    url: `https://example.com/${index + 1}?q=${encodeURIComponent(query)}`,
    snippet: `A <strong>snippet</strong> about ${query}, number ${index + 1}.`,
  }));
}
