import type { IncomingHttpHeaders } from "node:http";
import type { Account } from "./accounts.ts";
import type { Reply } from "./envelope.ts";
import type { Violation } from "./violations.ts";

/**
 * The endpoints the fake serves, as a table of method and path pattern (`:name` matches one segment, `*name` the
 * rest of the path). Who may call an endpoint is its `scope`: "account" endpoints live under /accounts/:account_id and
 * need a token that can use that account; "billing" ones too, and a token with Billing Read (which wrangler login's
 * OAuth token has not); "user" ones need any valid token; "verify" is /user/tokens/verify, which answers a bad token
 * in its own words.
 */
export interface ApiRequest {
  method: string;
  /** The path under /client/v4. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  params: Record<string, string>;
  /** The account an "account" endpoint addresses (undefined for the others). */
  account: Account;
  /** Records something Cloudflare would not know about this request (see violations.ts). */
  violation(problem: Violation["problem"], detail?: string): void;
}

export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  pattern: string;
  scope: "account" | "billing" | "user" | "verify";
  handle(request: ApiRequest): Reply | Promise<Reply>;
}

interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

export class Router {
  private readonly routes: CompiledRoute[];

  constructor(routes: Route[]) {
    this.routes = routes.map((route) => {
      const names: string[] = [];
      const source = route.pattern
        .split("/")
        .map((segment) => {
          if (segment.startsWith(":")) {
            names.push(segment.slice(1));
            return "([^/]+)";
          }
          if (segment.startsWith("*")) {
            names.push(segment.slice(1));
            return "(.+)";
          }
          return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        })
        .join("/");
      return { route, regex: new RegExp(`^${source}$`), names };
    });
  }

  /** The route for a method and path, with its parameters decoded; undefined when the fake does not serve it. */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const { route, regex, names } of this.routes) {
      if (route.method !== method) continue;
      const found = regex.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      names.forEach((name, index) => {
        params[name] = decodeURIComponent(found[index + 1]!);
      });
      return { route, params };
    }
    return undefined;
  }

  /** "METHOD pattern" for every endpoint served, in table order (the fake's vocabulary, for reports). */
  list(): string[] {
    return this.routes.map(({ route }) => `${route.method} ${route.pattern}`);
  }
}
