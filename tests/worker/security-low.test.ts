import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PRIVATE_CHAT, say, sentText } from "./helpers.ts";

/**
 * Issue 40 (low): a chat command that edits the chat's config must not overwrite a stored config that does not parse
 * (fail-closed): /voice used to write `{ voiceReplies }` over it, lifting `enabled: false`, budgets and tool lists.
 */
const BROKEN = '{"enabled": false, "budget": {"dailyCostUsd": 0.5}, "tools": ["recall"], "voiceReplies": "sometimes"}';

describe("security: commands over a config that does not parse", () => {
  it("/voice leaves it as it is and says why", async () => {
    await env.CONFIG.put(`chat-config:${PRIVATE_CHAT}`, BROKEN);
    const answer = sentText(await say("/voice always"));
    expect(await env.CONFIG.get(`chat-config:${PRIVATE_CHAT}`)).toBe(BROKEN);
    expect(answer).toContain("does not parse");
  });

  it("/provider leaves it as it is too", async () => {
    await env.CONFIG.put(`chat-config:${PRIVATE_CHAT}`, BROKEN);
    const answer = sentText(await say("/provider openai"));
    expect(await env.CONFIG.get(`chat-config:${PRIVATE_CHAT}`)).toBe(BROKEN);
    expect(answer).toContain("does not parse");
  });
});
