import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod";

/** The bearer token `/secure/mcp` wants; the tests give it to the Worker as the secret MCP_TEST_TOKEN. */
export const MCP_TEST_TOKEN = "mcp-test-secret-7f3a9c";

export interface McpCall {
  path: string;
  tool: string;
  arguments: unknown;
}

export interface FakeMcp {
  url: string;
  server: Server;
  calls: McpCall[];
  /** Every HTTP request's path, method and whether it carried the right token. */
  requests: { path: string; method: string; authorized: boolean; rpcMethod?: string; query: string }[];
  close(): Promise<void>;
}

/**
 * A small real MCP server (the official SDK's McpServer over Streamable HTTP, stateless) on 127.0.0.1:
 * `/open/mcp` offers `add`, `long_text`, `fail` and a tool whose name the bot cannot offer; `/secure/mcp` wants
 * `Authorization: Bearer MCP_TEST_TOKEN` and offers `whoami`; `/hang/mcp` never answers;
 * `/stateful/mcp` offers the open tools in sessions (`Mcp-Session-Id`). `GET /__mcp/calls` lists the tool calls it ran,
 * `POST /__mcp/reset` forgets them.
 */
export async function startFakeMcp(): Promise<FakeMcp> {
  const calls: McpCall[] = [];
  const requests: FakeMcp["requests"] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const serverFor = (path: string): McpServer => {
    const mcp = new McpServer({ name: "fake-mcp", version: "1.0.0" });
    const record = (tool: string, args: unknown) => calls.push({ path, tool, arguments: args });
    if (path === "/secure/mcp") {
      mcp.registerTool(
        "whoami",
        { description: "Says who the caller is.", inputSchema: {}, annotations: { readOnlyHint: true } },
        async () => {
          record("whoami", {});
          return { content: [{ type: "text", text: "You are the bot, with the right token." }] };
        },
      );
      return mcp;
    }
    mcp.registerTool(
      "add",
      {
        description: "Adds two numbers.",
        inputSchema: { a: z.number(), b: z.number() },
        annotations: { readOnlyHint: true },
      },
      async ({ a, b }) => {
        record("add", { a, b });
        return { content: [{ type: "text", text: `The sum is ${a + b}.` }] };
      },
    );
    mcp.registerTool(
      "long_text",
      {
        description: "Returns that many x characters.",
        inputSchema: { characters: z.number().int().min(0) },
        annotations: { readOnlyHint: true },
      },
      async ({ characters }) => {
        record("long_text", { characters });
        return { content: [{ type: "text", text: "x".repeat(characters) }] };
      },
    );
    mcp.registerTool(
      "fail",
      { description: "Always fails.", inputSchema: {}, annotations: { readOnlyHint: true } },
      async () => {
        record("fail", {});
        return { isError: true, content: [{ type: "text", text: "the fake failed on purpose" }] };
      },
    );
    // Not declared read-only: it acts (as a ticket tracker or a mail server's tool would).
    mcp.registerTool(
      "post_note",
      { description: "Posts a note somewhere public.", inputSchema: { text: z.string() } },
      async ({ text }) => {
        record("post_note", { text });
        return { content: [{ type: "text", text: "Posted." }] };
      },
    );
    mcp.registerTool("dotted.name", { description: "A name the bot cannot offer.", inputSchema: {} }, async () => ({
      content: [{ type: "text", text: "unreachable" }],
    }));
    return mcp;
  };

  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    if (path === "/__mcp/calls") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ calls, requests }));
      return;
    }
    if (path === "/__mcp/reset") {
      calls.length = 0;
      requests.length = 0;
      response.writeHead(200).end("{}");
      return;
    }
    const authorized = request.headers.authorization === `Bearer ${MCP_TEST_TOKEN}`;
    let raw = "";
    for await (const chunk of request) raw += String(chunk);
    let body: unknown;
    try {
      body = raw === "" ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const rpcMethod = (body as { method?: unknown } | undefined)?.method;
    requests.push({
      path,
      method: request.method ?? "",
      authorized,
      query: new URL(request.url ?? "/", "http://fake").search,
      ...(typeof rpcMethod === "string" ? { rpcMethod } : {}),
    });
    if (path === "/hang/mcp") {
      // A server that accepts the connection and never answers.
      response.on("close", () => undefined);
      return;
    }
    if (path === "/stateful/mcp") {
      // Sessions, as a stateful server keeps them: the bot should end its session (DELETE) after the turn.
      const sessionId = request.headers["mcp-session-id"];
      let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      if (!transport) {
        if (request.method !== "POST") {
          response.writeHead(400).end();
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
          onsessionclosed: (id) => {
            sessions.delete(id);
          },
        });
        await serverFor("/open/mcp").connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response, body);
      return;
    }
    if (path !== "/open/mcp" && path !== "/secure/mcp") {
      response.writeHead(404).end();
      return;
    }
    if (path === "/secure/mcp" && !authorized) {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    if (request.method !== "POST") {
      // Stateless: no notification stream to open, no session to end.
      response.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const mcp = serverFor(path);
    // Answers as an SSE stream here (a stateful session answers in JSON), so that the bot's client reads both.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    response.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    try {
      await mcp.connect(transport);
      await transport.handleRequest(request, response, body);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    calls,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
