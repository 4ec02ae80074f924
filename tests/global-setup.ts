import type { TestProject } from "vitest/node";
import { startFakeMcp } from "./fakes/mcp-server.ts";
import { startFakes } from "./fakes/server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    fakesUrl: string;
    mcpUrl: string;
  }
}

/** One set of fake upstreams for the whole run; tests reset and script them through `/__control/*`. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fakes = await startFakes();
  // A real MCP server (the official SDK's) beside the fakes, for chats' MCP tools.
  const mcp = await startFakeMcp();
  project.provide("fakesUrl", fakes.url);
  project.provide("mcpUrl", mcp.url);
  return async () => {
    await Promise.all([fakes.close(), mcp.close()]);
  };
}
