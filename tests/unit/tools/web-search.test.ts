import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { settingsOf } from "../../../src/config/loaded-settings.ts";
import { readSettings } from "../../../src/config/settings.ts";
import { healthReport } from "../../../src/http/routes/health.ts";
import { tools } from "../../../src/tools/index.ts";
import { searchWeb, WebSearchError } from "../../../src/tools/search-backends.ts";
import { FAKE_BRAVE_KEY, FAKE_TAVILY_KEY } from "../../fakes/search-apis.ts";
import { fakes, PRIVATE_CHAT } from "../../worker/helpers.ts";
import { toolContextFor } from "./tool-context.ts";

const run = (args: unknown, context = toolContextFor(PRIVATE_CHAT)) =>
  tools.execute("web_search", JSON.stringify(args), context, undefined);

describe("web_search", () => {
  it("asks the configured backend and gives title, URL, date and a plain snippet; the turn is marked and paid", async () => {
    const context = toolContextFor(PRIVATE_CHAT);
    const result = await run({ query: "cloudflare durable objects" }, context);

    expect(result.isError).toBe(false);
    expect(result.content).toContain("1. Result 1 for cloudflare durable objects");
    expect(result.content).toContain("https://example.com/1?q=cloudflare%20durable%20objects");
    // Brave's page_age, cut to the day; its <strong> decorations are gone.
    expect(result.content).toContain("2026-11-20 · A snippet about cloudflare durable objects, number 1.");
    expect(result.content).not.toContain("<strong>");
    expect(context.trust.untrustedSource).toBe("web search results");
    expect(context.paid.units.search).toBe(1);
    expect(context.paid.costUsd).toBeCloseTo(settingsOf(env).paid.prices.search);

    const [request] = await fakes.requests("search");
    expect(request?.path).toBe("/search/brave/res/v1/web/search");
    expect(request?.headers["x-subscription-token"]).toBe(FAKE_BRAVE_KEY);
    const query = new URLSearchParams(request?.query);
    expect(query.get("q")).toBe("cloudflare durable objects");
    expect(query.get("count")).toBe("5");
  });

  it("refuses bad arguments before any search", async () => {
    expect((await run({})).content).toMatch(/^Error: Invalid arguments for "web_search": query/);
    expect((await run({ query: "   " })).content).toMatch(/^Error: Invalid arguments/);
    expect((await run({ query: "x".repeat(401) })).content).toMatch(/^Error: Invalid arguments/);
    expect(await fakes.requests("search")).toHaveLength(0);
  });

  it("stops at the per-message cap and at the day's budget, without calling the backend or reading anything", async () => {
    const capped = toolContextFor(PRIVATE_CHAT, {
      policy: { caps: { ...settingsOf(env).paid.caps, search: { perTurn: 1, perDay: 100 } } },
    });
    expect((await run({ query: "first" }, capped)).isError).toBe(false);
    const second = await run({ query: "second" }, capped);
    expect(second).toEqual({ isError: true, content: "Error: One message may use at most 1 web search in this chat." });
    expect(capped.paid.units.search).toBe(1);

    const broke = toolContextFor(PRIVATE_CHAT, { policy: { dailyCostUsd: 0.001 } });
    const refused = await run({ query: "third" }, broke);
    expect(refused.content).toBe("Error: This chat's budget for today ($0.00) does not cover that.");
    expect(broke.trust.untrustedSource).toBeUndefined();
    expect(broke.paid.units.search).toBeUndefined();
    expect((await fakes.requests("search")).map((request) => new URLSearchParams(request.query).get("q"))).toEqual([
      "first",
    ]);
  });

  it("says what the backend refused, in its words, records nothing and never echoes the key", async () => {
    const context = toolContextFor(PRIVATE_CHAT, {
      overrides: {
        settings: readSettings({ ...env, BRAVE_SEARCH_API_KEY: "wrong-key-123", WEB_SEARCH: "brave" }),
      },
    });
    const result = await run({ query: "anything" }, context);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("Brave Search answered 422: The provided subscription token is invalid.");
    expect(result.content).not.toContain("wrong-key-123");
    expect(context.paid.units.search).toBeUndefined();
    // Failed or not, the turn read text from outside the chat.
    expect(context.trust.untrustedSource).toBe("web search results");
  });

  it("is not offered without a backend, and a named backend without its key is reported by /health", () => {
    const without = readSettings({ ...env, BRAVE_SEARCH_API_KEY: "" });
    expect(without.webSearch.backend).toBeUndefined();
    expect(tools.allowed(undefined, without).map((tool) => tool.name)).not.toContain("web_search");
    expect(tools.allowed(undefined, settingsOf(env)).map((tool) => tool.name)).toContain("web_search");

    const misnamed = { ...env, BRAVE_SEARCH_API_KEY: "", WEB_SEARCH: "tavily" };
    expect(healthReport(misnamed).problems).toContain(
      "WEB_SEARCH is tavily but TAVILY_API_KEY is not set: web_search is not offered",
    );
    expect(JSON.stringify(healthReport({ ...env, WEB_SEARCH: "bing" }))).toContain(
      "WEB_SEARCH must be off, brave, tavily, searxng or empty",
    );
  });

  it("picks the self-hosted instance first when several backends are configured, and none when told off", () => {
    const all = { ...env, SEARXNG_URL: "https://search.example.org/", TAVILY_API_KEY: "t" };
    expect(readSettings(all).webSearch.backend).toEqual({ kind: "searxng", url: "https://search.example.org" });
    expect(readSettings({ ...all, WEB_SEARCH: "tavily" }).webSearch.backend?.kind).toBe("tavily");
    expect(readSettings({ ...all, WEB_SEARCH: "off" }).webSearch.backend).toBeUndefined();
    expect(readSettings({ ...env, WEB_SEARCH_RESULTS: "50" }).problems).toContain(
      "WEB_SEARCH_RESULTS must be a whole number from 1 to 10",
    );
    expect(readSettings({ ...env, ANTHROPIC_WEB_SEARCH: "web_search_20990101" }).problems).toContain(
      "ANTHROPIC_WEB_SEARCH must be off, on or one of web_search_20250305, web_search_20260209, web_search_20260318",
    );
    expect(readSettings({ ...env, ANTHROPIC_WEB_SEARCH: "web_search_20260209" }).anthropicWebSearch).toEqual({
      kind: "on",
      toolType: "web_search_20260209",
      priceUsd: 0.01,
    });
    expect(readSettings({ ...env, HISTORY_RETENTION_DAYS: "-1" }).problems).toContain(
      "HISTORY_RETENTION_DAYS must be a whole number from 0 to 36500, or empty",
    );
  });
});

describe("search backends", () => {
  const tavily = (apiKey: string) => ({ kind: "tavily" as const, apiKey, baseUrl: `${env.FAKES_URL}/search/tavily` });
  const searxng = { kind: "searxng" as const, url: `${env.FAKES_URL}/search/searxng` };

  it("Tavily: a bearer key and a JSON body; a wrong key is refused in Tavily's words", async () => {
    const results = await searchWeb(tavily(FAKE_TAVILY_KEY), "edge computing", { count: 2 });
    expect(results).toEqual([
      {
        title: "Result 1 for edge computing",
        url: "https://example.com/1?q=edge%20computing",
        snippet: "A snippet about edge computing, number 1.",
      },
      {
        title: "Result 2 for edge computing",
        url: "https://example.com/2?q=edge%20computing",
        snippet: "A snippet about edge computing, number 2.",
      },
    ]);
    const [request] = await fakes.requests("search");
    expect(request?.body).toMatchObject({ query: "edge computing", max_results: 2, search_depth: "basic" });

    const refusal = searchWeb(tavily("nope"), "edge computing", { count: 2 });
    await expect(refusal).rejects.toThrow(WebSearchError);
    await expect(refusal).rejects.toThrow("Tavily answered 401: Unauthorized: missing or invalid API key.");
  });

  it("SearXNG: its JSON format, publishedDate as the date; a 403 says to enable the JSON format", async () => {
    const results = await searchWeb(searxng, "workers", { count: 5 });
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ title: "Result 1 for workers", date: "2026-11-19" });
    expect(results[1]?.date).toBeUndefined();
    expect(new URLSearchParams((await fakes.requests("search"))[0]?.query).get("format")).toBe("json");

    await fakes.script("search", {
      path: "/search/searxng/search",
      status: 403,
      text: "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>",
    });
    await expect(searchWeb(searxng, "workers", { count: 5 })).rejects.toThrow(
      "SearXNG refused the JSON format (403): its settings.yml must list json in search.formats.",
    );
  });

  it("an answer in another shape, or no answer, is an error rather than no results", async () => {
    await fakes.script("search", { path: "/search/searxng/search", body: { html: "<p>hi</p>" } });
    await expect(searchWeb(searxng, "x", { count: 3 })).rejects.toThrow(
      "SearXNG answered in a shape this bot does not read.",
    );
    await fakes.script("search", { path: "/search/searxng/search", destroy: true });
    await expect(searchWeb(searxng, "x", { count: 3 })).rejects.toThrow("SearXNG could not be reached");
    // An empty list is an answer.
    await fakes.script("search", { path: "/search/searxng/search", body: { results: [] } });
    await expect(searchWeb(searxng, "x", { count: 3 })).resolves.toEqual([]);
  });
});
