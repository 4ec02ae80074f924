import { Hono } from "hono";
import { consoleRoutes } from "./console/app.tsx";
import type { Env } from "./env.ts";
import { handleError, notFound } from "./http/error.ts";
import { adminRoutes } from "./http/routes/admin.ts";
import { agentToolsRoutes, isPublicToolRouteEnabled } from "./http/routes/agent-tools.ts";
import { healthRoutes } from "./http/routes/health.ts";
import { webhookRoutes } from "./http/routes/webhook.ts";

export { ContainerProxy } from "@cloudflare/containers";
export { AgentContainer } from "./durable/agent-container.ts";
export { ChatSession } from "./durable/chat-session.ts";

const app = new Hono<{ Bindings: Env }>();

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

export default app satisfies ExportedHandler<Env>;
