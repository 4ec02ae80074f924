import type { EffectiveConfig } from "../config/chat-config.ts";
import { MAX_TOOLS_PER_SERVER, type McpServerConfig, namespacedToolName } from "../config/mcp-servers.ts";
import type { Settings } from "../config/settings.ts";
import { modelToolSchema } from "../protocol/run-payload.ts";
import { addressesIn, outwardHold } from "../tools/outward-policy.ts";
import { heldForConfirmation, type Tool, ToolError } from "../tools/registry.ts";
import { argumentsCheck } from "./arguments-check.ts";
import { type ListedTool, McpConnection, McpServerError } from "./connection.ts";
import { identityOf, resolveHeaders, type SecretReader } from "./headers.ts";

export type { SecretReader } from "./headers.ts";

import { listingCache } from "./listing-cache.ts";
import { resultText } from "./result-text.ts";

/** What one of a chat's servers offers this turn, or why it offers nothing. */
type ServerListing =
  | {
      server: string;
      state: "ok";
      /** When the tool list was fetched (epoch ms): earlier than now when it came from the cache. */
      listedAt: number;
      tools: Tool[];
      /** Tools the server lists that the bot cannot offer (name too long or not [A-Za-z0-9_-], a broken schema). */
      skipped: { tool: string; reason: string }[];
    }
  | { server: string; state: "unavailable"; problem: string };

/** A chat's MCP servers for one turn: their tools, the servers that are down, and the sessions to close at the end. */
export interface ChatMcp {
  listings: ServerListing[];
  tools: Tool[];
  /** A note for the model naming the servers whose tools are missing this turn, or undefined. */
  note: string | undefined;
  close(): Promise<void>;
}

const DESCRIPTION_MAX = 4000;

/** Opens a chat's MCP servers for one turn (only those its allowlist leaves a tool of). */
export type McpOpener = (
  config: Pick<EffectiveConfig, "mcpServers" | "tools">,
  signal: AbortSignal,
) => Promise<ChatMcp>;

/** The opener of every turn, chat's and helper's: a server the allowlist leaves no tool of is not even listed. */
export function mcpOpener(secrets: SecretReader, settings: Settings): McpOpener {
  return (config, signal) =>
    openChatMcp(
      config.mcpServers.filter((server) => config.tools?.some((name) => name.startsWith(`${server.name}__`)) ?? true),
      { secrets, settings, signal },
    );
}

/**
 * Lists each of the chat's servers (from the cache when it is fresh) in parallel. A server that is down, refuses
 * the bot or has a secret that is not set loses its tools for this turn and is named in `note`; nothing here throws.
 */
export async function openChatMcp(
  servers: readonly McpServerConfig[],
  options: { secrets: SecretReader; settings: Settings; signal?: AbortSignal; now?: () => number; refresh?: boolean },
): Promise<ChatMcp> {
  const now = options.now ?? Date.now;
  const connections: McpConnection[] = [];
  const listings = await Promise.all(
    servers.map(async (server): Promise<ServerListing> => {
      const resolved = resolveHeaders(server, options.secrets);
      if (resolved.kind === "missing") {
        return { server: server.name, state: "unavailable", problem: `the secret ${resolved.secretName} is not set` };
      }
      const connection = new McpConnection(
        { name: server.name, url: server.url, headers: resolved.headers, secrets: resolved.secrets },
        { timeoutMs: options.settings.mcp.timeoutMs, signal: options.signal },
      );
      connections.push(connection);
      const identity = await identityOf(server, resolved.headers);
      let cached = options.refresh ? undefined : listingCache.get(identity, now());
      if (cached === undefined) {
        try {
          cached = { state: "ok", tools: await connection.listTools(), listedAt: now() };
        } catch (error) {
          const problem = error instanceof McpServerError ? error.message : "could not be listed";
          console.warn(`mcp server ${server.name}: ${problem}`);
          cached = { state: "failed", problem, listedAt: now() };
        }
        listingCache.put(identity, cached, options.settings.mcp.listCacheMs);
      }
      if (cached.state === "failed") {
        const age = Math.round((now() - cached.listedAt) / 1000);
        const problem = age > 0 ? `${cached.problem}, ${age} s ago` : cached.problem;
        return { server: server.name, state: "unavailable", problem };
      }
      return {
        server: server.name,
        state: "ok",
        listedAt: cached.listedAt,
        ...toolsOf(server.name, cached.tools, connection),
      };
    }),
  );
  const down = listings.filter((listing) => listing.state === "unavailable");
  return {
    listings,
    tools: listings.flatMap((listing) => (listing.state === "ok" ? listing.tools : [])),
    note:
      down.length === 0
        ? undefined
        : down
            .map(
              (listing) =>
                `The MCP server "${listing.server}" is unavailable in this turn (${listing.problem}), so its tools ` +
                `(${listing.server}__…) are missing. If the user asks for something that needs them, say so.`,
            )
            .join("\n"),
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

function toolsOf(
  server: string,
  listed: readonly ListedTool[],
  connection: McpConnection,
): { tools: Tool[]; skipped: { tool: string; reason: string }[] } {
  const tools: Tool[] = [];
  const skipped: { tool: string; reason: string }[] = [];
  for (const entry of listed) {
    const name = namespacedToolName(server, entry.name);
    if (tools.length >= MAX_TOOLS_PER_SERVER) {
      skipped.push({ tool: entry.name, reason: `more than ${MAX_TOOLS_PER_SERVER} tools` });
    } else if (!modelToolSchema.shape.name.safeParse(name).success) {
      skipped.push({ tool: entry.name, reason: `${name} is not 1-64 characters of A-Z, a-z, 0-9, _ and -` });
    } else if (entry.inputSchema.type !== "object") {
      skipped.push({ tool: entry.name, reason: "its input schema is not an object" });
    } else {
      tools.push(mcpTool({ server, name, entry, connection }));
    }
  }
  return { tools, skipped };
}

/** One server tool as a registry `Tool`: arguments checked against the server's JSON Schema before calling out. */
function mcpTool(input: { server: string; name: string; entry: ListedTool; connection: McpConnection }): Tool {
  const { server, name, entry, connection } = input;
  const validate = argumentsCheck(entry.inputSchema);
  return {
    name,
    description: (entry.description || `${entry.name} from the MCP server ${server}`).slice(0, DESCRIPTION_MAX),
    inputSchema: () => entry.inputSchema,
    available: () => true,
    async invoke(raw, context) {
      if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
        return { kind: "invalid", problem: "the arguments must be a JSON object" };
      }
      const checked = validate(raw);
      if (!checked.valid) return { kind: "invalid", problem: checked.errorMessage ?? "they do not match its schema" };
      // Its arguments reach the server: one with side effects waits for the person in an untrusted turn.
      const send = { kind: "mcp", server, tool: entry.name, readOnly: entry.readOnly === true } as const;
      const held = outwardHold(context.trust, send);
      if (held) return { kind: "ran", result: await heldForConfirmation(name, raw, held, context) };
      // Whatever the server answers, nobody in the chat wrote it.
      context.trust.markUntrusted(`the MCP server ${server}`);
      let result: Awaited<ReturnType<McpConnection["callTool"]>>;
      try {
        result = await connection.callTool(entry.name, { ...raw });
      } catch (error) {
        if (error instanceof McpServerError) throw new ToolError(`The MCP server ${server} ${error.message}.`);
        throw error;
      }
      const text = resultText(result);
      context.trust.noteShown(addressesIn(text));
      return { kind: "ran", result: { content: text, isError: result.isError === true } };
    },
  };
}
