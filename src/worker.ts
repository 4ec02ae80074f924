import { Hono } from "hono/tiny";
import { loadSettings } from "./config/loaded-settings.ts";
import { consoleRoutes } from "./console/app.tsx";
import { AgentContainer, ANTHROPIC_PROXY_HOST, OPENAI_PROXY_HOST } from "./durable/agent-container.ts";
import { containerLedger } from "./durable/agent-containers.ts";
import { proxyModelCall } from "./durable/model-proxy.ts";
import { proxyResponsesCall } from "./durable/model-proxy-responses.ts";
import type { Env } from "./env.ts";
import { adminRoutes } from "./http/routes/admin.ts";
import { agentToolsRoutes, isPublicToolRouteEnabled } from "./http/routes/agent-tools.ts";
import { healthRoutes } from "./http/routes/health.ts";
import { webhookRoutes } from "./http/routes/webhook.ts";
import { handleError, notFound } from "./protocol/http/error.ts";
import { WORKER_CALLBACK_HOST } from "./protocol/run-payload.ts";

export { ContainerProxy } from "@cloudflare/containers";
export { AgentContainer } from "./durable/agent-container.ts";
export { ChatSession } from "./durable/chat-session.ts";
export { HelperSession } from "./durable/helper-session.ts";

const app = new Hono<{ Bindings: Env }>();

// Every request reads the settings first: the console's part comes from KV at most once a minute per isolate.
app.use("*", async (c, next) => {
  await loadSettings(c.env);
  await next();
});

app.route("/health", healthRoutes());
app.route("/telegram/webhook", webhookRoutes());
app.route("/admin", adminRoutes());
app.route("/console", consoleRoutes());
// Only for a runner started by hand (AGENT_CALLBACK_URL set): a container reaches its tools through its outbound
// handler, so in production this route does not exist and strangers cannot knock on chat objects through it.
app.use("/agent/tools/*", async (c, next) => (isPublicToolRouteEnabled(c.env) ? next() : notFound(c)));
app.route("/agent/tools", agentToolsRoutes());

app.notFound(notFound);
app.onError((error, c) => handleError(error, c));

/** What a container reaches as http://worker.internal: the same tool routes, with the same token check. */
const callbackApp = new Hono<{ Bindings: Env }>()
  .route("/agent/tools", agentToolsRoutes())
  .notFound(notFound)
  .onError((error, c) => handleError(error, c));

// @cloudflare/containers files outbound handlers under the class's `name` and finds them by it again. The bundle does
// not keep names (wrangler.toml's keep_names), so the class is given its own for good rather than a minified one.
Object.defineProperty(AgentContainer, "name", { value: "AgentContainer" });

// The agent container's outbound handlers: its model calls go through the proxies (which hold the keys: Anthropic's
// Messages API for Claude, OpenAI's Responses API for Codex), its tool calls to the chat's object. Assigned here, not as `static` fields of the class: a static field would shadow the
// base class's setter and the handlers would never be registered (cloudflare/containers#247).
AgentContainer.outboundByHost = {
  [ANTHROPIC_PROXY_HOST]: async (request: Request, env: Env, context) => {
    await loadSettings(env);
    return proxyModelCall({
      request,
      env,
      containerId: context.containerId,
      ledgerFor: (chatKey) => containerLedger(env, chatKey),
    });
  },
  [OPENAI_PROXY_HOST]: async (request: Request, env: Env, context) => {
    await loadSettings(env);
    return proxyResponsesCall({
      request,
      env,
      containerId: context.containerId,
      ledgerFor: (chatKey) => containerLedger(env, chatKey),
    });
  },
  [WORKER_CALLBACK_HOST]: async (request: Request, env: Env) => {
    await loadSettings(env);
    return callbackApp.fetch(request, env);
  },
};

export default app satisfies ExportedHandler<Env>;
