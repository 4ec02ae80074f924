import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { adminRoutes } from "./config/admin.ts";
import { healthReport } from "./config/health.ts";
import { handleAgentToolCall } from "./durable/agent-tools-endpoint.ts";
import type { Env } from "./env.ts";
import { HttpError } from "./http-error.ts";
import { handleWebhook } from "./telegram/webhook.ts";

export { ChatSession } from "./durable/chat-session.ts";
export { AgentContainer } from "./durable/agent-container.ts";
export { ContainerProxy } from "@cloudflare/containers";

const app = new Hono<{ Bindings: Env }>();

app.get("/health", (c) => c.json(healthReport(c.env)));
app.post("/telegram/webhook", handleWebhook);
app.route("/admin", adminRoutes());
app.post("/agent/tools/:chatKey", (c) => handleAgentToolCall(c.req.raw, c.env, c.req.param("chatKey")));

app.notFound((c) => c.json({ error: "not_found", message: "Not found." }, 404));

app.onError((error, c) => {
  if (error instanceof HttpError) {
    return c.json({ error: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }, error.status);
  }
  if (error instanceof HTTPException) {
    // Hono's own refusals, e.g. a body that is not JSON on a validated route.
    return c.json({ error: "invalid_request", message: error.message }, error.status);
  }
  console.error("unhandled error", error instanceof Error ? `${error.name}: ${error.message}` : error);
  return c.json({ error: "internal", message: "Internal error." }, 500);
});

export default app satisfies ExportedHandler<Env>;
