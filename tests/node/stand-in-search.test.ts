import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hasSearchBackend, standInSearchVars } from "../../scripts/dev-vars.ts";
import { type StandInSearch, startStandInSearch } from "../../scripts/stand-in-search/server.ts";

const NOW = Date.parse("2026-11-24T09:00:00Z");

let search: StandInSearch;
beforeEach(async () => {
  search = await startStandInSearch({ now: () => NOW });
});
afterEach(async () => {
  await search.close();
});

describe("the stand-in search", () => {
  /** A search as the bot's SearXNG backend asks (src/tools/search-backends.ts): GET /search, q, format=json, pageno. */
  const searxng = async (q: string) => {
    const url = new URL(`${search.url}/search`);
    url.search = new URLSearchParams({ q, format: "json", pageno: "1" }).toString();
    const response = await fetch(url, { headers: { accept: "application/json" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    return (await response.json()) as {
      query: string;
      results: { url: string; title: string; content: string; publishedDate: string | null; engine: string }[];
      answers: unknown[];
      suggestions: unknown[];
    };
  };

  it("answers as SearXNG's JSON format: its pages, each titled as a stand-in, the best match first", async () => {
    const body = await searxng("Bot API news this week");
    expect(body.query).toBe("Bot API news this week");
    expect(body.answers).toEqual([]);
    expect(body.results[0]).toMatchObject({
      title: "Bot API changelog: the latest releases (stand-in search)",
      url: `${search.url}/pages/bot-api-changelog`,
      content: expect.stringContaining("Bot API 10.3"),
      // Two days before now: "this week" finds it.
      publishedDate: "2026-11-22T09:00:00.000Z",
      engine: "stand-in",
    });
    expect(body.results.length).toBeGreaterThan(2);
    for (const result of body.results) {
      expect(result.title).toMatch(/\(stand-in search\)$/);
      expect(result.url.startsWith(`${search.url}/pages/`)).toBe(true);
    }
    // Every list ends with the page that says what these results are.
    expect(body.results.at(-1)).toMatchObject({ url: `${search.url}/pages/about`, publishedDate: null });

    const nothing = await searxng("sourdough starter");
    expect(nothing.results.map((result) => result.title)).toEqual([
      "About these results: a local stand-in, not the web (stand-in search)",
    ]);
  });

  it("serves the pages its results point to, each saying it is not the web", async () => {
    const response = await fetch(`${search.url}/pages/bot-api-changelog`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain("<title>Bot API changelog: the latest releases (stand-in search)</title>");
    expect(html).toContain("stopped_message_generation");
    expect(html).toContain("not of the web");
    expect(html).toContain("SEARXNG_URL");
    const about = await (await fetch(`${search.url}/pages/about`)).text();
    expect(about).toContain("BRAVE_SEARCH_API_KEY");
    expect((await fetch(`${search.url}/pages/nothing-here`)).status).toBe(404);
  });

  it("refuses what SearXNG refuses, with its words: another format (403), no query (400)", async () => {
    const html = await fetch(`${search.url}/search?q=bot`);
    expect(html.status).toBe(403);
    expect(await html.text()).toContain("<title>403 Forbidden</title>");
    const empty = await fetch(`${search.url}/search?q=&format=json`);
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "No query" });
    // A form body is read as the query string is.
    const posted = await fetch(`${search.url}/search`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "q=guest+mode&format=json",
    });
    const body = (await posted.json()) as { query: string; results: { title: string }[] };
    expect(body.query).toBe("guest mode");
    expect(body.results[0]?.title).toBe("Guest mode: summoning a bot in a chat it is not in (stand-in search)");
  });
});

describe("npm run dev's choice of search", () => {
  const started = { url: "http://127.0.0.1:4100", host: "127.0.0.1:4100" };

  it("starts the stand-in only when .dev.vars configures no backend and does not turn search off", () => {
    expect(hasSearchBackend({})).toBe(false);
    // The placeholders .dev.vars.example ships with count as unset.
    expect(hasSearchBackend({ BRAVE_SEARCH_API_KEY: "", TAVILY_API_KEY: " ", WEB_SEARCH: "" })).toBe(false);
    expect(hasSearchBackend({ BRAVE_SEARCH_API_KEY: "replace-me" })).toBe(false);
    expect(hasSearchBackend({ BRAVE_SEARCH_API_KEY: "BSA-real" })).toBe(true);
    expect(hasSearchBackend({ TAVILY_API_KEY: "tvly-real" })).toBe(true);
    expect(hasSearchBackend({ SEARXNG_URL: "http://search.lan:8888" })).toBe(true);
    expect(hasSearchBackend({ WEB_SEARCH: "off" })).toBe(true);
  });

  it("points the bot at it, lets web_fetch read its pages, keeps hosts already allowed, and prices it at nothing", () => {
    expect(standInSearchVars(started, {})).toEqual({
      SEARXNG_URL: "http://127.0.0.1:4100",
      WEB_FETCH_PRIVATE_HOSTS: "127.0.0.1:4100",
      SEARCH_PRICE_USD: "0",
    });
    expect(
      standInSearchVars(started, { WEB_FETCH_PRIVATE_HOSTS: " 127.0.0.1:3000 ,", SEARCH_PRICE_USD: "0.01" }),
    ).toEqual({
      SEARXNG_URL: "http://127.0.0.1:4100",
      WEB_FETCH_PRIVATE_HOSTS: "127.0.0.1:3000,127.0.0.1:4100",
    });
  });
});
