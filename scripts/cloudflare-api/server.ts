import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBodyBytes } from "../read-body.ts";
import type { AccountOptions } from "./accounts.ts";
import { refuseAuth } from "./auth.ts";
import { containerRoutes } from "./containers.ts";
import { controlRequest } from "./control.ts";
import { d1Routes } from "./d1.ts";
import { d1ImportRoutes, receiveUpload } from "./d1-import.ts";
import { fail, type Reply } from "./envelope.ts";
import { kvRoutes } from "./kv.ts";
import { planRoutes } from "./plan-info.ts";
import { r2Routes } from "./r2.ts";
import { type ApiRequest, Router } from "./router.ts";
import { secretRoutes } from "./secrets.ts";
import { CloudflareState } from "./state.ts";
import { subdomainRoutes } from "./subdomain.ts";
import { userRoutes } from "./user.ts";
import type { Violation } from "./violations.ts";
import { deploymentRoutes } from "./worker-deployments.ts";
import { workerRoutes } from "./workers-scripts.ts";

/**
 * A fake of Cloudflare's v4 API on 127.0.0.1, for the real wrangler (pointed at it with CLOUDFLARE_API_BASE_URL,
 * CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID) and for deploy scripts. It keeps each account's Workers, D1
 * databases (real SQLite), KV namespaces, R2 buckets and container applications, refuses what Cloudflare refuses for
 * the account's plan in Cloudflare's codes and words (refusals.ts), and records every endpoint or field it does not
 * know as a violation (violations.ts). `/__control/*` resets and reads it from another process (control.ts).
 */
export interface CloudflareApiOptions {
  /** The API token the fake accepts (CLOUDFLARE_API_TOKEN). */
  token: string;
  /** An OAuth token it also accepts, as `wrangler login` leaves one (no billing scope). */
  oauthToken?: string;
  accounts: AccountOptions[];
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Called with each violation as it is recorded (the CLI prints them). */
  onViolation?: (violation: Violation) => void;
}

interface RecordedCall {
  method: string;
  /** The path under /client/v4, with the query. */
  path: string;
  status: number;
}

export interface CloudflareApi {
  /** The API base, `http://127.0.0.1:<port>/client/v4`: wrangler's CLOUDFLARE_API_BASE_URL. */
  url: string;
  /** The server's origin, where `/__control/*` lives. */
  origin: string;
  state: CloudflareState;
  violations(): Violation[];
  /** Every call answered, in order (method, path, status; no bodies, so no secret is ever kept here). */
  calls: RecordedCall[];
  /** "METHOD pattern" of every endpoint the fake serves. */
  endpoints(): string[];
  close(): Promise<void>;
}

const PREFIX = "/client/v4";

export async function startCloudflareApi(options: CloudflareApiOptions): Promise<CloudflareApi> {
  const state = new CloudflareState(options.token, options.accounts, options.oauthToken);
  const router = new Router([
    ...userRoutes(state),
    ...planRoutes(),
    ...workerRoutes(),
    ...deploymentRoutes(),
    ...secretRoutes(),
    ...subdomainRoutes(),
    ...d1Routes(),
    ...d1ImportRoutes(state),
    ...kvRoutes(),
    ...r2Routes(),
    ...containerRoutes(),
  ]);
  const calls: RecordedCall[] = [];

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? "/", "http://fake");
      const body = await readBodyBytes(request);
      if (url.pathname.startsWith("/__control/")) {
        return send(response, await controlRequest(state, api, request.method ?? "GET", url, body));
      }
      if (url.pathname.startsWith("/__d1-upload/") && request.method === "PUT") {
        return send(response, receiveUpload(state, url.pathname.slice("/__d1-upload/".length), body));
      }
      const method = request.method ?? "GET";
      const path = url.pathname.startsWith(`${PREFIX}/`) ? url.pathname.slice(PREFIX.length) : url.pathname;
      const violation = (problem: Violation["problem"], detail?: string) => {
        const recorded: Violation = {
          method,
          path,
          problem,
          ...(detail === undefined ? {} : { detail }),
          at: Date.now(),
        };
        state.violations.push(recorded);
        options.onViolation?.(recorded);
      };
      const found = url.pathname.startsWith(`${PREFIX}/`) ? router.match(method, path) : undefined;
      let reply: Reply;
      if (!found) {
        // Cloudflare's answer to a path it does not route; the test that caused it fails on the violation.
        violation("unknown endpoint");
        reply = fail(404, 7000, "No route for that URI");
      } else {
        const accountId = path.startsWith("/accounts/") ? found.params.account_id : undefined;
        reply =
          refuseAuth(state, found.route, request.headers, accountId) ??
          (await found.route.handle({
            method,
            path,
            query: url.searchParams,
            headers: request.headers,
            body,
            params: found.params,
            account: state.accounts.get(accountId ?? "")!,
            violation,
          } satisfies ApiRequest));
      }
      calls.push({ method, path: path + url.search, status: reply.status });
      send(response, reply);
    } catch (error) {
      console.error("[cloudflare-api] handler failed:", error);
      send(response, fail(500, 10002, "Unexpected internal server error"));
    }
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const api: CloudflareApi = {
    url: `${origin}${PREFIX}`,
    origin,
    state,
    violations: () => [...state.violations],
    calls,
    endpoints: () => router.list(),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      state.reset([]);
    },
  };
  return api;
}

function send(response: ServerResponse, reply: Reply): void {
  if (reply.raw) {
    response.writeHead(reply.status, { "content-type": reply.raw.contentType });
    response.end(reply.raw.bytes);
    return;
  }
  response.writeHead(reply.status, { "content-type": "application/json", ...(reply.etag ? { etag: reply.etag } : {}) });
  response.end(JSON.stringify(reply.body));
}
