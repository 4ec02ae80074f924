import { createParser } from "eventsource-parser";
import * as z from "zod";

/**
 * The client half of MCP's Streamable HTTP transport, for the three requests the bot makes (initialize, tools/list,
 * tools/call) and the session's end. Written here rather than taken from the official SDK: the SDK's client brings
 * every MCP type's schema, OAuth and a reconnecting notification stream, 21 KiB gzip of the Worker's 250 KiB budget
 * (issue 41), and a turn needs none of them. Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports
 */

/** The protocol version asked for; a server may answer with another it supports, which later requests then name. */
export const MCP_PROTOCOL_VERSION = "2025-11-25";
/** Versions whose requests and results are what this client reads. */
const SUPPORTED_VERSIONS = new Set([MCP_PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05"]);

const rpcError = z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() });
const rpcResponse = z.union([
  z.object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]),
    result: z.record(z.string(), z.unknown()),
  }),
  z.object({ jsonrpc: z.literal("2.0"), id: z.union([z.string(), z.number(), z.null()]), error: rpcError }),
]);
const initializeResult = z.looseObject({ protocolVersion: z.string() });

/** Where and how one session talks to its server. */
export interface StreamableHttpOptions {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** One MCP session over Streamable HTTP: `initialize` first, then requests, then `end`. */
export class StreamableHttpSession {
  private readonly options: StreamableHttpOptions;
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private nextId = 1;

  constructor(options: StreamableHttpOptions) {
    this.options = options;
  }

  /** The handshake: `initialize`, the version check, then the `notifications/initialized` notification. */
  async initialize(client: { name: string; version: string }): Promise<void> {
    const result = initializeResult.parse(
      await this.request("initialize", { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: client }),
    );
    if (!SUPPORTED_VERSIONS.has(result.protocolVersion)) {
      throw new Error(`the server's protocol version ${result.protocolVersion} is not supported`);
    }
    this.protocolVersion = result.protocolVersion;
    await this.post({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined);
  }

  /** One JSON-RPC request; its result, or the server's error as an Error. */
  async request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const response = await this.post({ jsonrpc: "2.0", id, method, params }, id);
    if (!response) throw new Error(`the server did not answer ${method}`);
    if ("error" in response) throw new Error(`MCP error ${response.error.code}: ${response.error.message}`);
    return response.result;
  }

  /** Ends a session the server keeps (DELETE with its id); a server without sessions is not asked. */
  async end(): Promise<void> {
    if (this.sessionId === undefined) return;
    const response = await fetch(this.options.url, {
      method: "DELETE",
      headers: this.headers(),
      signal: this.signal(),
    });
    await response.body?.cancel();
    // 405: the server does not let clients end sessions, which the spec allows.
    if (!response.ok && response.status !== 405) throw new Error(`ending the session: HTTP ${response.status}`);
    this.sessionId = undefined;
  }

  private async post(
    message: Record<string, unknown>,
    id: number | undefined,
  ): Promise<z.infer<typeof rpcResponse> | undefined> {
    const response = await fetch(this.options.url, {
      method: "POST",
      headers: { ...this.headers(), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(message),
      signal: this.signal(),
    });
    const sessionId = response.headers.get("mcp-session-id");
    if (sessionId) this.sessionId = sessionId;
    if (!response.ok) {
      const text = (await response.text().catch(() => "")).slice(0, 200);
      throw new Error(`HTTP ${response.status}${text ? `: ${text}` : ""}`);
    }
    if (id === undefined) {
      // A notification: 202 Accepted, no body to read.
      await response.body?.cancel();
      return undefined;
    }
    const type = response.headers.get("content-type") ?? "";
    if (type.includes("text/event-stream")) return await this.fromEvents(response, id);
    if (type.includes("application/json")) return pickResponse(await response.json(), id);
    await response.body?.cancel();
    throw new Error(`unexpected content type ${type || "(none)"}`);
  }

  /** Reads an SSE answer until the response to `id` (server requests and notifications on the way are ignored). */
  private async fromEvents(response: Response, id: number): Promise<z.infer<typeof rpcResponse> | undefined> {
    const body = response.body;
    if (!body) return undefined;
    let found: z.infer<typeof rpcResponse> | undefined;
    const parser = createParser({
      onEvent: (event) => {
        if (found || event.data === "") return;
        found = pickResponse(JSON.parse(event.data), id);
      },
    });
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (!found) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    return found;
  }

  private headers(): Record<string, string> {
    return {
      ...this.options.headers,
      ...(this.sessionId !== undefined ? { "mcp-session-id": this.sessionId } : {}),
      ...(this.protocolVersion !== undefined ? { "mcp-protocol-version": this.protocolVersion } : {}),
    };
  }

  private signal(): AbortSignal {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    return this.options.signal ? AbortSignal.any([timeout, this.options.signal]) : timeout;
  }
}

/** The response to `id` in a JSON body (one message or a batch); anything else there (requests, notifications) is not. */
function pickResponse(body: unknown, id: number): z.infer<typeof rpcResponse> | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    const parsed = rpcResponse.safeParse(message);
    if (parsed.success && (parsed.data.id === id || ("error" in parsed.data && parsed.data.id === null))) {
      return parsed.data;
    }
  }
  return undefined;
}
