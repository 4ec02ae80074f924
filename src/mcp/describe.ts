import type { EffectiveConfig } from "../config/chat-config.ts";
import { allowlistAllows } from "../config/mcp-servers.ts";
import type { Settings } from "../config/settings.ts";
import { openChatMcp, type SecretReader } from "./chat-mcp.ts";

/** One server as the admin API shows it. */
export type McpServerDescription = { name: string; url: string; headers: string[] } & (
  | { state: "unavailable"; problem: string }
  | {
      state: "ok";
      listedAt: string;
      tools: { name: string; description: string; inputSchema: Record<string, unknown>; allowed: boolean }[];
      skipped: { tool: string; reason: string }[];
    }
);

/**
 * A chat's MCP servers and their tools, for the admin API: what the model would be offered, and why a server offers
 * nothing. Header names are shown, never their values.
 */
export async function describeMcpServers(
  config: EffectiveConfig,
  options: { secrets: SecretReader; settings: Settings; refresh: boolean },
): Promise<McpServerDescription[]> {
  const mcp = await openChatMcp(config.mcpServers, options);
  try {
    return config.mcpServers.map((server, index): McpServerDescription => {
      const listing = mcp.listings[index];
      const about = { name: server.name, url: server.url, headers: Object.keys(server.headers ?? {}) };
      if (listing === undefined || listing.state === "unavailable") {
        return { ...about, state: "unavailable", problem: listing?.problem ?? "not listed" };
      }
      return {
        ...about,
        state: "ok",
        listedAt: new Date(listing.listedAt).toISOString(),
        tools: listing.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema(),
          allowed: allowlistAllows(config.tools, tool.name),
        })),
        skipped: listing.skipped,
      };
    });
  } finally {
    await mcp.close();
  }
}
