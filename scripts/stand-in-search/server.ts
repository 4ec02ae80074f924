/**
 * A local stand-in for a SearXNG instance, which `npm run dev` starts on 127.0.0.1 when no search backend is
 * configured, so that `web_search` and `web_fetch` can be tried without a key: `GET|POST /search?q=…&format=json`
 * answers in SearXNG's JSON format with the few pages of pages.ts, each titled "… (stand-in search)", and
 * `GET /pages/<slug>` serves those pages (the bot's web_fetch reads them when WEB_FETCH_PRIVATE_HOSTS names this
 * server's host:port). Like an instance whose settings.yml lists only json in search.formats, it refuses any other
 * format with Flask's 403 page, and a search without a query with `{"error": "No query"}` (400), as SearXNG does.
 * Plain, erasable TypeScript.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "../read-body.ts";
import { findPages, pageHtml } from "./pages.ts";

export interface StandInSearch {
  /** The instance's root, for SEARXNG_URL. */
  url: string;
  /** Its host:port, for WEB_FETCH_PRIVATE_HOSTS (its pages are on loopback, which web_fetch otherwise refuses). */
  host: string;
  close(): Promise<void>;
}

const FORBIDDEN =
  "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n" +
  "<p>You don&#39;t have the permission to access the requested resource. It is either read-protected or not " +
  "readable by the server.</p>\n";

const NOT_FOUND =
  "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n" +
  "<p>The requested URL was not found on the server. If you entered the URL manually please check your spelling and " +
  "try again.</p>\n";

export async function startStandInSearch(options: { port?: number; now?: () => number } = {}): Promise<StandInSearch> {
  const now = options.now ?? Date.now;
  let origin = "";
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? "/", "http://stand-in");
      const body = await readBody(request);
      if (url.pathname === "/search" && (request.method === "GET" || request.method === "POST")) {
        // SearXNG reads its parameters from the query string and a form body alike.
        const form = new URLSearchParams(url.search);
        if (request.method === "POST") for (const [name, value] of new URLSearchParams(body)) form.set(name, value);
        return search(response, form);
      }
      const page = /^\/pages\/([\w-]+)$/.exec(url.pathname)?.[1];
      const html = request.method === "GET" && page ? pageHtml(page, now()) : undefined;
      if (html !== undefined) return send(response, 200, "text/html; charset=utf-8", html);
      if (request.method === "GET" && url.pathname === "/healthz") return send(response, 200, "text/plain", "OK");
      send(response, 404, "text/html; charset=utf-8", NOT_FOUND);
    } catch (thrown) {
      send(response, 500, "application/json", JSON.stringify({ error: `search error: ${String(thrown)}` }));
    }
  });

  const search = (response: ServerResponse, form: URLSearchParams) => {
    // An unknown format is read as html, which this instance does not serve.
    if (form.get("format") !== "json") return send(response, 403, "text/html; charset=utf-8", FORBIDDEN);
    const query = form.get("q") ?? "";
    if (query === "") return send(response, 400, "application/json", JSON.stringify({ error: "No query" }));
    const results = findPages(query, now()).map((hit, index) => ({
      url: `${origin}/pages/${hit.slug}`,
      title: hit.title,
      content: hit.summary,
      publishedDate: hit.publishedDate,
      engine: "stand-in",
      engines: ["stand-in"],
      positions: [index + 1],
      score: hit.score,
      category: "general",
      template: "default.html",
      thumbnail: "",
    }));
    send(
      response,
      200,
      "application/json",
      JSON.stringify({
        query,
        number_of_results: 0,
        results,
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    );
  };

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    host: `127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type });
  response.end(body);
}
