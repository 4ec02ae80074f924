import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

/**
 * What each API's CLI needs, and how the key goes upstream. Nothing else (files, batches, admin, stored responses) is
 * forwarded with the key. The Claude Code CLI is given the proxy's root, Codex its `/v1` (OpenAI's base URL form).
 */
const APIS = {
  anthropic: {
    paths: new Set(["/v1/messages", "/v1/messages/count_tokens"]),
    keyHeader: (key: string): [string, string] => ["x-api-key", key],
    clientRoot: "",
    refusal: (message: string) => ({ type: "error", error: { type: "permission_error", message } }),
  },
  openai: {
    paths: new Set(["/v1/responses"]),
    keyHeader: (key: string): [string, string] => ["authorization", `Bearer ${key}`],
    clientRoot: "/v1",
    refusal: (message: string) => ({ error: { message, type: "invalid_request_error", param: null, code: null } }),
  },
} as const;
export type ProxiedApi = keyof typeof APIS;
/** Request headers that are not passed on: hop-by-hop ones and the CLI's own credentials. */
const DROPPED_REQUEST_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "authorization",
  "x-api-key",
]);
const DROPPED_RESPONSE_HEADERS = new Set([
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "content-encoding",
]);

export interface ModelProxy {
  /** What the CLI gets as its base URL: `http://127.0.0.1:<port>` (Anthropic) or `…/v1` (OpenAI). */
  url: string;
  /** A new per-run key the proxy accepts until `release` is called. */
  issueKey: () => string;
  release: (key: string) => void;
  close: () => Promise<void>;
}

/**
 * For a runner started by hand: a loopback proxy in the runner's own process that holds the real API key. The CLI
 * gets a per-run key that is worth nothing elsewhere; the proxy forwards its model calls (`POST /v1/messages` for
 * Anthropic, `POST /v1/responses` for OpenAI) upstream with the real key instead, and refuses any other key, path or
 * method. In the container the Worker's outbound handler plays this part (and also pins the model and caps tokens).
 * `upstream` is the API's root: `https://api.anthropic.com`, or OpenAI's `https://api.openai.com/v1`.
 */
export async function startModelProxy(options: {
  api: ProxiedApi;
  upstream: string;
  apiKey: string;
}): Promise<ModelProxy> {
  const api = APIS[options.api];
  const keys = new Set<string>();
  // The upstream root as the paths above see it: OpenAI's base URL ends in /v1, which the paths carry themselves.
  const upstream = options.upstream.replace(/\/+$/, "").replace(new RegExp(`${api.clientRoot}$`), "");
  const server = http.createServer((request, response) => {
    const refuse = (status: number, message: string): void => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(api.refusal(message)));
    };
    const presented = request.headers["x-api-key"] ?? bearerOf(request.headers.authorization);
    if (typeof presented !== "string" || !keys.has(presented)) return refuse(401, "Not a key of a running turn.");
    const target = new URL(request.url ?? "/", "http://proxy");
    if (request.method !== "POST" || !api.paths.has(target.pathname)) {
      return refuse(403, `Only POST ${[...api.paths].join(" and ")} ${api.paths.size > 1 ? "are" : "is"} forwarded.`);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || DROPPED_REQUEST_HEADERS.has(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    headers.set(...api.keyHeader(options.apiKey));
    const abort = new AbortController();
    response.on("close", () => abort.abort());
    void (async () => {
      try {
        const answer = await fetch(`${upstream}${target.pathname}${target.search}`, {
          method: "POST",
          headers,
          body: Readable.toWeb(request) as ReadableStream<Uint8Array>,
          duplex: "half",
          signal: abort.signal,
        });
        const outgoing: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!DROPPED_RESPONSE_HEADERS.has(name)) outgoing[name] = value;
        });
        response.writeHead(answer.status, outgoing);
        if (answer.body) {
          for await (const chunk of answer.body) response.write(chunk);
        }
        response.end();
      } catch {
        if (!response.headersSent) refuse(502, "The model API could not be reached.");
        else response.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${api.clientRoot}`,
    issueKey: () => {
      const key = `run-${randomBytes(24).toString("base64url")}`;
      keys.add(key);
      return key;
    },
    release: (key) => {
      keys.delete(key);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return match?.[1];
}
