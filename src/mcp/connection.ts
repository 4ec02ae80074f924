import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { bestEffort } from "../lib/best-effort.ts";
import { redactSecrets } from "../lib/redact.ts";

/** A tool as a server lists it (the parts the bot uses). */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server declares the tool has no side effects (annotations.readOnlyHint): it may run in an untrusted turn. */
  readOnly?: boolean;
}

/** What a server answered to a call (MCP's CallToolResult, the parts the bot reads). */
export interface CalledTool {
  content: ReadonlyArray<Record<string, unknown>>;
  structuredContent?: Record<string, unknown> | undefined;
  isError?: boolean | undefined;
}

/** The one error type of the MCP boundary: which server, what failed (secrets scrubbed), the SDK's error as cause. */
export class McpServerError extends Error {
  override readonly name = "McpServerError";
  readonly server: string;

  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.server = server;
  }
}

/** The server as a connection needs it: its headers resolved, and their secret values to scrub from errors. */
export interface McpEndpoint {
  name: string;
  url: string;
  headers: Record<string, string>;
  secrets: string[];
}

/** How long closing waits for a server to end its session. */
const SESSION_END_WAIT_MS = 2_000;
/** Listings past this many pages are cut: a server offering thousands of tools is not meant for a chat. */
const MAX_LIST_PAGES = 5;
/**
 * Validates JSON Schemas without generating code, which Workers forbid. The SDK's default validator (ajv) is never
 * constructed; wrangler.toml aliases it away from the bundle.
 */
export const schemaValidator = new CfWorkerJsonSchemaValidator({ draft: "2020-12", shortcircuit: false });

/**
 * One Streamable HTTP session with a chat's MCP server, through the official SDK client. Opened when first needed in
 * a turn and closed at its end; every request is bounded by `timeoutMs` and the turn's signal.
 */
export class McpConnection {
  private client: Promise<Client> | undefined;
  private readonly server: McpEndpoint;
  private readonly options: { timeoutMs: number; signal?: AbortSignal | undefined };

  constructor(server: McpEndpoint, options: { timeoutMs: number; signal?: AbortSignal | undefined }) {
    this.server = server;
    this.options = options;
  }

  async listTools(): Promise<ListedTool[]> {
    const client = await this.connected();
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await this.guard("list its tools", () =>
        client.listTools(cursor === undefined ? {} : { cursor }, this.requestOptions()),
      );
      for (const tool of listed.tools) {
        // `$schema` names the server's draft; providers want the schema alone, as the bot's own tools give it.
        const { $schema: _draft, ...inputSchema } = tool.inputSchema;
        tools.push({
          name: tool.name,
          description: tool.description ?? tool.title ?? "",
          inputSchema,
          ...(tool.annotations?.readOnlyHint === true ? { readOnly: true } : {}),
        });
      }
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<CalledTool> {
    const client = await this.connected();
    const result = await this.guard(`run ${name}`, () =>
      client.callTool({ name, arguments: args }, undefined, this.requestOptions()),
    );
    return {
      content: Array.isArray(result.content) ? result.content : [],
      structuredContent: isRecord(result.structuredContent) ? result.structuredContent : undefined,
      isError: result.isError === true,
    };
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    const open = await client.catch(() => undefined);
    if (!open) return;
    // A server that keeps sessions is told this one is over (DELETE), briefly: the turn is already answered.
    const transport = open.transport;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        bestEffort("ending an MCP session", () => transport.terminateSession()),
        new Promise((resolve) => {
          timer = setTimeout(resolve, SESSION_END_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    await bestEffort("closing an MCP connection", () => open.close());
  }

  private connected(): Promise<Client> {
    this.client ??= this.guard("connect", async () => {
      const client = new Client(
        { name: "telegram-edge-agent", version: "1.0.0" },
        { capabilities: {}, jsonSchemaValidator: schemaValidator },
      );
      const transport = new StreamableHTTPClientTransport(new URL(this.server.url), {
        requestInit: { headers: this.server.headers },
        // The SDK would reconnect a dropped notification stream forever; a turn needs no server notifications.
        reconnectionOptions: {
          maxReconnectionDelay: 1_000,
          initialReconnectionDelay: 1_000,
          reconnectionDelayGrowFactor: 1,
          maxRetries: 0,
        },
      });
      await client.connect(transport, this.requestOptions());
      return client;
    });
    // A failed connection is not reused: the next call (a later turn) tries again.
    this.client.catch(() => {
      this.client = undefined;
    });
    return this.client;
  }

  private requestOptions(): { timeout: number; signal?: AbortSignal } {
    return { timeout: this.options.timeoutMs, ...(this.options.signal ? { signal: this.options.signal } : {}) };
  }

  private async guard<T>(doing: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const text = redactSecrets(scrub(detail, this.server.secrets)).slice(0, 300);
      throw new McpServerError(this.server.name, `could not ${doing}: ${text}`, { cause: error });
    }
  }
}

/** Removes every resolved secret from a text (an error message may quote a request or a server's answer). */
export function scrub(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) if (secret.length >= 4) clean = clean.split(secret).join("…");
  return clean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
