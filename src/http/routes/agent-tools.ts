import { Hono } from "hono/tiny";
import { settingsOf } from "../../config/loaded-settings.ts";
import { chatStub, parseChatKey } from "../../durable/chat-key.ts";
import type { Env } from "../../env.ts";
import { requireBearer } from "../../protocol/http/bearer.ts";
import { HttpError } from "../../protocol/http/error.ts";
import { jsonBody } from "../../protocol/http/json-body.ts";
import { toolCallSchema } from "../../protocol/run-payload.ts";
import { type RunClaims, verifyRunToken } from "../../protocol/run-token.ts";

const MAX_BODY_BYTES = 256_000;

type AgentToolsEnv = { Bindings: Env; Variables: { run: RunClaims } };

/**
 * `POST /agent/tools/:chatKey`: a tool call from an agent runner, back to the chat object whose turn it serves, with
 * `Authorization: Bearer <per-run token>` and `{ name, arguments }`. The object runs it with its own context and
 * authorization; a token that is not its running turn's is refused, so a runner can never act for another chat.
 * Served on the public app only for a runner started by hand (AGENT_CALLBACK_URL set); a container reaches the same
 * routes through its outbound handler.
 */
export function agentToolsRoutes(): Hono<AgentToolsEnv> {
  return new Hono<AgentToolsEnv>().post(
    "/:chatKey",
    requireBearer<AgentToolsEnv>(async (presented, c) => {
      // Checked here, before any chat object is reached (or created): a signed token for this chat, not expired.
      const secret = settingsOf(c.env).botToken;
      const claims = secret === undefined ? undefined : await verifyRunToken(secret, presented, Date.now());
      if (claims === undefined || claims.chatKey !== c.req.param("chatKey")) return false;
      c.set("run", claims);
      return true;
    }),
    jsonBody(toolCallSchema, { maxBytes: MAX_BODY_BYTES }),
    async (c) => {
      const target = parseChatKey(c.req.param("chatKey"));
      if (!target) throw new HttpError(404, { code: "not_found", message: "No such chat." });
      const call = c.req.valid("json");
      const outcome = await chatStub(c.env, target).runRemoteTool(c.get("run").runId, call.name, call.arguments);
      if (outcome === "unauthorized") {
        throw new HttpError(401, { code: "unauthorized", message: "No running turn with that token in this chat." });
      }
      return c.json(outcome);
    },
  );
}

/** The public route exists only while AGENT_CALLBACK_URL points a hand-started runner at this Worker. */
export function isPublicToolRouteEnabled(env: Env): boolean {
  return settingsOf(env).toolCallback.kind === "public-route";
}
