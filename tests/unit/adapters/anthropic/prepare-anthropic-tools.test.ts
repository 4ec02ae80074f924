import { describe, expect, it } from "vitest";
import { toAnthropicTools } from "../../../../src/adapters/anthropic/prepare-anthropic-tools.ts";
import { functionTools } from "../../../../src/adapters/request-tools.ts";
import type { RequestTool } from "../../../../src/adapters/types.ts";

const [echo, time] = functionTools([
  { name: "echo", description: "Echo", inputSchema: { properties: { text: { type: "string" } } } },
  { name: "time", description: "The time", inputSchema: {} },
]);

describe("toAnthropicTools", () => {
  it("sends the bot's tools as custom tools, the last one cacheable, and the server search after them", () => {
    const tools: RequestTool[] = [
      echo!,
      { kind: "provider", id: "anthropic.web_search", version: "web_search_20250305", maxUses: 4 },
      time!,
    ];
    expect(toAnthropicTools(tools)).toEqual([
      { name: "echo", description: "Echo", input_schema: { type: "object", properties: { text: { type: "string" } } } },
      { name: "time", description: "The time", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } },
      { type: "web_search_20250305", name: "web_search", max_uses: 4 },
    ]);
  });

  it("leaves out a server search allowed no uses", () => {
    expect(
      toAnthropicTools([{ kind: "provider", id: "anthropic.web_search", version: "web_search_20250305", maxUses: 0 }]),
    ).toEqual([]);
  });
});
