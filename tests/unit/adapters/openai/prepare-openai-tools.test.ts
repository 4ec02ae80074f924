import { describe, expect, it } from "vitest";
import { openAIToolsJson } from "../../../../src/adapters/openai/prepare-openai-tools.ts";
import { functionTools } from "../../../../src/adapters/request-tools.ts";

describe("openAIToolsJson", () => {
  it("sends the bot's tools as functions and leaves provider tools out", () => {
    const ready = openAIToolsJson([
      ...functionTools([{ name: "echo", description: "Echo", inputSchema: { type: "object" } }]),
      { kind: "provider", id: "anthropic.web_search", version: "web_search_20250305", maxUses: 3 },
    ]);
    expect(JSON.parse(ready!.tools!)).toEqual([
      { type: "function", function: { name: "echo", description: "Echo", parameters: { type: "object" } } },
    ]);
  });

  it("names no tools when only provider tools are left", () => {
    expect(
      openAIToolsJson([{ kind: "provider", id: "anthropic.web_search", version: "web_search_20250305", maxUses: 3 }]),
    ).toBeUndefined();
  });
});
