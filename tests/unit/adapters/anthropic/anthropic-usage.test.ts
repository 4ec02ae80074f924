import { describe, expect, it } from "vitest";
import { tokenUsageOf } from "../../../../src/adapters/anthropic/anthropic-usage.ts";

describe("tokenUsageOf", () => {
  it("counts cached reads and cache writes as input, and the searches the server made", () => {
    expect(
      tokenUsageOf({
        input_tokens: 5,
        output_tokens: 7,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 20,
        server_tool_use: { web_search_requests: 2 },
      }),
    ).toEqual({ inputTokens: 125, outputTokens: 7, cacheReadTokens: 100, cacheWriteTokens: 20, webSearches: 2 });
  });

  it("reads missing and null counts as none", () => {
    expect(tokenUsageOf({ input_tokens: 3, cache_read_input_tokens: null, server_tool_use: null })).toEqual({
      inputTokens: 3,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });
});
