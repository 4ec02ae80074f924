import * as z from "zod";
import { bestEffort } from "../lib/best-effort.ts";
import { redactSecrets } from "../lib/redact.ts";
import { StreamableHttpSession } from "./streamable-http.ts";

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
/** A listing page: the tools (the parts the bot reads) and the next page's cursor. */
const toolsPage = z.object({
  tools: z.array(
    z.looseObject({
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.record(z.string(), z.unknown()),
      // MCP's ToolAnnotations: only readOnlyHint is read (a hint the server gives, trusted as its owner's word).
      annotations: z.looseObject({ readOnlyHint: z.boolean().optional() }).optional(),
    }),
  ),
  nextCursor: z.string().optional(),
});
const callResult = z.looseObject({
  content: z.array(z.record(z.string(), z.unknown())).optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});

/**
 * One Streamable HTTP session with a chat's MCP server (src/mcp/streamable-http.ts). Opened when first needed in a
 * turn and closed at its end; every request is bounded by `timeoutMs` and the turn's signal.
 */
export class McpConnection {
  private session: Promise<StreamableHttpSession> | undefined;
  private readonly server: McpEndpoint;
  private readonly options: { timeoutMs: number; signal?: AbortSignal | undefined };

  constructor(server: McpEndpoint, options: { timeoutMs: number; signal?: AbortSignal | undefined }) {
    this.server = server;
    this.options = options;
  }

  async listTools(): Promise<ListedTool[]> {
    const session = await this.connected();
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await this.guard("list its tools", async () =>
        toolsPage.parse(await session.request("tools/list", cursor === undefined ? {} : { cursor })),
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
    const session = await this.connected();
    const result = await this.guard(`run ${name}`, async () =>
      callResult.parse(await session.request("tools/call", { name, arguments: args })),
    );
    return {
      content: result.content ?? [],
      structuredContent: result.structuredContent,
      isError: result.isError === true,
    };
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (!session) return;
    const open = await session.catch(() => undefined);
    if (!open) return;
    // A server that keeps sessions is told this one is over (DELETE), briefly: the turn is already answered.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      bestEffort("ending an MCP session", () => open.end()),
      new Promise((resolve) => {
        timer = setTimeout(resolve, SESSION_END_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  private connected(): Promise<StreamableHttpSession> {
    this.session ??= this.guard("connect", async () => {
      const session = new StreamableHttpSession({
        url: this.server.url,
        headers: this.server.headers,
        timeoutMs: this.options.timeoutMs,
        signal: this.options.signal,
      });
      await session.initialize({ name: "telegram-edge-agent", version: "1.0.0" });
      return session;
    });
    // A failed connection is not reused: the next call (a later turn) tries again.
    this.session.catch(() => {
      this.session = undefined;
    });
    return this.session;
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
