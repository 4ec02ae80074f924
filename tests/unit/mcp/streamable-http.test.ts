import { afterEach, describe, expect, it, vi } from "vitest";
import { MCP_PROTOCOL_VERSION, StreamableHttpSession } from "../../../src/mcp/streamable-http.ts";

interface Seen {
  method: string;
  headers: Record<string, string>;
  body: { id?: number; method?: string } | undefined;
}

/** Stands in for `fetch`: records each request and answers with the next of `answers`. */
function serve(answers: Array<(seen: Seen) => Response>): Seen[] {
  const seen: Seen[] = [];
  vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
    const request: Seen = {
      method: init.method ?? "GET",
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
    };
    seen.push(request);
    const answer = answers.shift();
    if (!answer) throw new Error("no more answers");
    return answer(request);
  });
  return seen;
}

const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { headers: { "content-type": "application/json", ...headers } });
const initialized = (seen: Seen) =>
  json(
    { jsonrpc: "2.0", id: seen.body?.id, result: { protocolVersion: "2025-06-18", capabilities: {} } },
    { "mcp-session-id": "s-1" },
  );
const accepted = () => new Response(null, { status: 202 });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("an MCP Streamable HTTP session", () => {
  it("initializes, then names the session and the agreed version on every later request", async () => {
    const seen = serve([initialized, accepted, (s) => json({ jsonrpc: "2.0", id: s.body?.id, result: { tools: [] } })]);
    const session = new StreamableHttpSession({
      url: "http://mcp.test/",
      headers: { authorization: "Bearer t" },
      timeoutMs: 1000,
    });
    await session.initialize({ name: "bot", version: "1" });
    expect(await session.request("tools/list", {})).toEqual({ tools: [] });
    expect(seen.map((s) => s.body?.method)).toEqual(["initialize", "notifications/initialized", "tools/list"]);
    expect(seen[0]!.body).toMatchObject({ params: { protocolVersion: MCP_PROTOCOL_VERSION } });
    expect(seen[0]!.headers["mcp-session-id"]).toBeUndefined();
    expect(seen[2]!.headers).toMatchObject({
      authorization: "Bearer t",
      "mcp-session-id": "s-1",
      "mcp-protocol-version": "2025-06-18",
      accept: "application/json, text/event-stream",
    });
  });

  it("reads the answer from an SSE stream past the server's own notifications", async () => {
    serve([
      initialized,
      accepted,
      (s) =>
        new Response(
          `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n` +
            `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: s.body?.id, result: { content: [] } })}\n\n`,
          { headers: { "content-type": "text/event-stream" } },
        ),
    ]);
    const session = new StreamableHttpSession({ url: "http://mcp.test/", headers: {}, timeoutMs: 1000 });
    await session.initialize({ name: "bot", version: "1" });
    expect(await session.request("tools/call", { name: "x" })).toEqual({ content: [] });
  });

  it("turns a JSON-RPC error, an HTTP error and an unknown protocol version into errors that say which", async () => {
    serve([
      initialized,
      accepted,
      (s) => json({ jsonrpc: "2.0", id: s.body?.id, error: { code: -32602, message: "Unknown tool: nope" } }),
      () => new Response("no such session", { status: 404 }),
    ]);
    const session = new StreamableHttpSession({ url: "http://mcp.test/", headers: {}, timeoutMs: 1000 });
    await session.initialize({ name: "bot", version: "1" });
    await expect(session.request("tools/call", { name: "nope" })).rejects.toThrow(
      "MCP error -32602: Unknown tool: nope",
    );
    await expect(session.request("tools/list", {})).rejects.toThrow("HTTP 404: no such session");

    serve([(s) => json({ jsonrpc: "2.0", id: s.body?.id, result: { protocolVersion: "1999-01-01" } })]);
    const old = new StreamableHttpSession({ url: "http://mcp.test/", headers: {}, timeoutMs: 1000 });
    await expect(old.initialize({ name: "bot", version: "1" })).rejects.toThrow("1999-01-01 is not supported");
  });

  it("ends a kept session with DELETE, and asks nothing of a server without sessions", async () => {
    const seen = serve([initialized, accepted, () => new Response(null, { status: 200 })]);
    const session = new StreamableHttpSession({ url: "http://mcp.test/", headers: {}, timeoutMs: 1000 });
    await session.initialize({ name: "bot", version: "1" });
    await session.end();
    expect(seen[2]).toMatchObject({ method: "DELETE", headers: { "mcp-session-id": "s-1" } });

    const none = serve([
      (s) => json({ jsonrpc: "2.0", id: s.body?.id, result: { protocolVersion: MCP_PROTOCOL_VERSION } }),
      accepted,
    ]);
    const stateless = new StreamableHttpSession({ url: "http://mcp.test/", headers: {}, timeoutMs: 1000 });
    await stateless.initialize({ name: "bot", version: "1" });
    await stateless.end();
    expect(none).toHaveLength(2);
  });
});
