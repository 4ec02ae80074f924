import * as z from "zod";
import { addressesIn } from "./outward-policy.ts";
import { defineTool, ToolError } from "./registry.ts";
import { searchWeb, type WebResult, WebSearchError } from "./search-backends.ts";

export const webSearch = defineTool({
  name: "web_search",
  description:
    "Search the web. Returns a few results (title, URL, date when known, a short snippet); the snippets are not the " +
    "pages: read the one that answers with web_fetch before relying on it. Each search costs money: search once " +
    "with a good query rather than many times.",
  schema: z.object({
    query: z.string().trim().min(1).max(400).describe("What to search for, as you would type it into a search engine."),
  }),
  // Offered when a backend is configured (WEB_SEARCH, or a key or SEARXNG_URL).
  available: (settings) => settings.webSearch.backend !== undefined,
  async handler({ query }, context) {
    const { backend, results: count } = context.settings.webSearch;
    if (!backend) throw new ToolError("Web search is not configured.");
    // Each search is paid for: per-message and daily caps, and the chat's budget, are asked first.
    const reserved = context.paid.reserve("search", 1);
    if ("refused" in reserved) throw new ToolError(reserved.refused);
    // Results are written by strangers: from here on this turn may not act beyond its chat.
    context.trust.markUntrusted("web search results");
    let results: WebResult[];
    try {
      results = await searchWeb(backend, query, { count });
    } catch (error) {
      reserved.held.release();
      if (error instanceof WebSearchError) throw new ToolError(`The search failed: ${error.message}`);
      throw error;
    }
    reserved.held.settle();
    if (results.length === 0) return { content: `No web results for "${query}".` };
    // A result's address may be read without asking: fetching it composes nothing.
    context.trust.noteShown(results.flatMap((result) => addressesIn(result.url)));
    const lines = results.map((result, index) =>
      [
        `${index + 1}. ${result.title}`,
        `   ${result.url}`,
        `   ${result.date ? `${result.date} · ` : ""}${result.snippet || "(no snippet)"}`,
      ].join("\n"),
    );
    return {
      content: `Web results for "${query}" (snippets only; read a page with web_fetch):\n${lines.join("\n")}`,
    };
  },
});
