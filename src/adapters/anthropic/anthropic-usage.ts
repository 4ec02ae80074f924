import type { TokenUsage } from "../types.ts";

/** Token counts as the Messages API reports them; the cache fields may be missing or null. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  server_tool_use?: { web_search_requests?: number | null } | null;
}

/**
 * The neutral usage: every input token (the API counts cached reads and cache writes apart from `input_tokens`), the
 * output, and the server searches made (each billed by Anthropic).
 */
export function tokenUsageOf(usage: AnthropicUsage | undefined): TokenUsage {
  const cacheRead = usage?.cache_read_input_tokens ?? 0;
  const cacheWrite = usage?.cache_creation_input_tokens ?? 0;
  const webSearches = usage?.server_tool_use?.web_search_requests ?? 0;
  return {
    inputTokens: (usage?.input_tokens ?? 0) + cacheRead + cacheWrite,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    ...(webSearches > 0 ? { webSearches } : {}),
  };
}
