import { randomBytes } from "node:crypto";
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import { requireBearer, secretsEqual } from "../src/protocol/http/bearer.ts";
import { HttpError, handleError, notFound } from "../src/protocol/http/error.ts";
import type { ModelTool } from "../src/protocol/run-payload.ts";
import { callWorkerTool, failed, TOOL_CALL_TIMEOUT_MS, type ToolCallback } from "./worker-tools.ts";

/** The server's name in Codex's config (`mcp_servers.bot`): Codex shows its tools to the model under it. */
const CODEX_TOOL_SERVER_NAME = "bot";
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost"]);

export interface CodexToolServer {
  /** `http://127.0.0.1:<port>/mcp`: what Codex gets as `mcp_servers.bot.url`. */
  url: string;
  /** The bearer token the server wants: random per run, handed to Codex in an environment variable. */
  token: string;
  close: () => Promise<void>;
}

/**
 * The bot's tools for one Codex run, as a Streamable HTTP MCP server on loopback (Codex takes MCP servers from its
 * config, not in-process as the Claude SDK does). Stateless: each request gets a fresh `Server` of the official SDK
 * with the run's tools, described by the JSON Schemas the Worker sent (the low-level `Server`, because these tools
 * are already JSON Schema and need no zod round trip; the Worker validates the arguments again). A call goes back to
 * the Worker with the run's token (`callWorkerTool`). Only loopback Host names and the run's own bearer token are
 * answered, so a web page or another process without the token cannot call the bot's tools through it.
 */
export async function startCodexToolServer(
  tools: readonly ModelTool[],
  callback: ToolCallback,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<CodexToolServer> {
  const timeoutMs = options.timeoutMs ?? TOOL_CALL_TIMEOUT_MS;
  const token = randomBytes(24).toString("base64url");
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  const mcpServer = (): Server => {
    const server = new Server({ name: CODEX_TOOL_SERVER_NAME, version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: { ...tool.inputSchema, type: "object" as const },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const name = request.params.name;
      if (!byName.has(name)) return failed(`There is no tool named ${name}.`);
      return callWorkerTool(callback, name, request.params.arguments ?? {}, {
        timeoutMs,
        signals: [options.signal, extra.signal],
      });
    });
    return server;
  };

  const app = new Hono();
  app.use(async (c, next) => {
    const host = /^([^:[\]]+)(?::\d{1,5})?$/.exec(c.req.header("host") ?? "")?.[1]?.toLowerCase();
    if (host === undefined || !LOOPBACK_HOSTS.has(host)) {
      throw new HttpError(403, { code: "forbidden_host", message: "This server answers only loopback requests." });
    }
    await next();
  });
  app.use(requireBearer((presented) => secretsEqual(presented, token)));
  app.all("/mcp", async (c) => {
    const server = mcpServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      // A JSON answer is complete once it is returned: nothing of this request's server is needed after it.
      void server.close().catch(() => undefined);
    }
  });
  app.notFound(notFound);
  app.onError((error, c) => handleError(error, c, () => undefined));

  const server = createAdaptorServer({ fetch: app.fetch }) as HttpServer;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
