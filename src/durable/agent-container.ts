import { Container } from "@cloudflare/containers";
import { Hono } from "hono";
import { settingsOf } from "../config/settings.ts";
import type { Env } from "../env.ts";
import { handleError, notFound } from "../http/error.ts";
import { agentToolsRoutes } from "../http/routes/agent-tools.ts";
import { WORKER_CALLBACK_HOST } from "../protocol/run-payload.ts";

/** Plain-HTTP hosts the runner is pointed at; they exist only inside the container and end in the handlers below. */
export const ANTHROPIC_PROXY_HOST = "anthropic.internal";
const ALLOWED_ANTHROPIC_PATHS = new Set(["/v1/messages", "/v1/messages/count_tokens"]);

/**
 * One container per chat running `container/` (the Claude Agent SDK runner). The Anthropic key never enters it:
 * the runner talks plain HTTP to `anthropic.internal`, and this class's outbound handler forwards each request to
 * the real API over HTTPS with the key added. Tool calls go to `worker.internal` and are served by the chat's object.
 */
export class AgentContainer extends Container<Env> {
  override defaultPort = 8080;
  override sleepAfter = "10m";
  override envVars: Record<string, string> = {
    PORT: "8080",
    IS_SANDBOX: "1",
    ANTHROPIC_BASE_URL: `http://${ANTHROPIC_PROXY_HOST}`,
    // A placeholder the SDK wants to see; the outbound handler replaces it with the real key.
    ANTHROPIC_API_KEY: "added-by-the-worker",
    WORKSPACE_ROOT: "/workspace",
    // The CLI retries overloaded/5xx answers itself (about ten times by default); keep a stuck turn short.
    CLAUDE_CODE_MAX_RETRIES: "3",
  };
}

const callbackApp = new Hono<{ Bindings: Env }>()
  .route("/agent/tools", agentToolsRoutes())
  .notFound(notFound)
  .onError((error, c) => handleError(error, c));

// Assigned after the class, not as `static` fields: a static field would shadow the base class's setter and the
// handlers would never be registered (cloudflare/containers#247).
AgentContainer.outboundByHost = {
  [ANTHROPIC_PROXY_HOST]: async (request: Request, env: Env) => {
    const settings = settingsOf(env);
    if (!settings.anthropicApiKey) return new Response("ANTHROPIC_API_KEY is not set", { status: 503 });
    const incoming = new URL(request.url);
    // The key only ever pays for model calls: not for the Files, Batches or admin APIs, whatever runs in there.
    if (request.method !== "POST" || !ALLOWED_ANTHROPIC_PATHS.has(incoming.pathname)) {
      return new Response("Only POST /v1/messages and /v1/messages/count_tokens are forwarded.", { status: 403 });
    }
    const upstream = new URL(settings.anthropicBaseUrl ?? "https://api.anthropic.com");
    upstream.pathname = `${upstream.pathname.replace(/\/$/, "")}${incoming.pathname}`;
    upstream.search = incoming.search;
    const forwarded = new Request(upstream, request);
    forwarded.headers.delete("authorization");
    forwarded.headers.set("x-api-key", settings.anthropicApiKey);
    return fetch(forwarded);
  },
  // The same routes as the public /agent/tools (with the same token check), reached only from inside a container.
  [WORKER_CALLBACK_HOST]: (request: Request, env: Env) => callbackApp.fetch(request, env),
};
