import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { adminRoutes } from "./config/admin.ts";
import { healthReport } from "./config/health.ts";
import { AGENT_CALLBACK_HOST, settingsOf } from "./config/settings.ts";
import { handleAgentToolCall } from "./durable/agent-tools-endpoint.ts";
import type { Env } from "./env.ts";
import { HttpError } from "./http-error.ts";
import { handleWebhook } from "./telegram/webhook.ts";

export { ContainerProxy } from "@cloudflare/containers";
export { AgentContainer } from "./durable/agent-container.ts";
export { ChatSession } from "./durable/chat-session.ts";

const app = new Hono<{ Bindings: Env }>();

app.get("/health", (c) => c.json(healthReport(c.env)));
app.post("/telegram/webhook", handleWebhook);
app.route("/admin", adminRoutes());
// Only for a runner started by hand (AGENT_CALLBACK_URL set): a container reaches its tools through its outbound
// handler, so in production this route does not exist and strangers cannot knock on chat objects through it.
app.post("/agent/tools/:chatKey", (c) => {
  if (settingsOf(c.env).agentCallbackUrl === AGENT_CALLBACK_HOST) throw new HttpError(404, "not_found", "Not found.");
  return handleAgentToolCall(c.req.raw, c.env, c.req.param("chatKey"));
});

app.notFound((c) => c.json({ error: "not_found", message: "Not found." }, 404));

app.onError((error, c) => {
  if (error instanceof HttpError) {
    return c.json(
      { error: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
      error.status,
    );
  }
  if (error instanceof HTTPException) {
    // Hono's own refusals, e.g. a body that is not JSON on a validated route.
    return c.json({ error: "invalid_request", message: error.message }, error.status);
  }
  console.error("unhandled error", error instanceof Error ? `${error.name}: ${error.message}` : error);
  return c.json({ error: "internal", message: "Internal error." }, 500);
});

export default app satisfies ExportedHandler<Env>;
