import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, anthropicText, fakes, PRIVATE_CHAT, say, sentText } from "./helpers.ts";

const configure = (config: unknown) =>
  admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify(config) });

interface Health {
  ok: boolean;
  problems: string[];
  retiredModels?: { provider: string; model: string; fellBackTo: string }[];
}

describe("a model the provider has retired", () => {
  it("OpenAI: the chat falls back to the default model with a line saying so, and /health names it", async () => {
    expect((await configure({ provider: "openai", model: "gpt-4.5-preview" })).status).toBe(200);
    const answer = await say("hello after the retirement", { count: 2 });
    expect(sentText(answer)).toBe("echo: hello after the retirement");
    const [notice] = await fakes.requests("telegram", { method: "sendMessage" });
    expect(sentText(notice)).toBe(
      "↪️ gpt-4.5-preview is no longer offered by its provider (retired); gpt-test answers instead. An admin can choose another model with /model.",
    );
    const calls = await fakes.requests("openai");
    expect(calls.map((call) => (call.body as { model: string }).model)).toEqual(["gpt-4.5-preview", "gpt-test"]);

    const health = (await (await exports.default.fetch("http://bot.test/health")).json()) as Health;
    expect(health.ok).toBe(false);
    expect(health.retiredModels).toEqual([
      expect.objectContaining({ provider: "openai", model: "gpt-4.5-preview", fellBackTo: "openai:gpt-test" }),
    ]);
    expect(health.problems.join("\n")).toContain("openai no longer serves gpt-4.5-preview (retired)");
  });

  it("Anthropic: a not_found_error falls back along the chat's own chain first", async () => {
    await configure({
      provider: "anthropic",
      model: "claude-3-5-sonnet-20241022",
      fallbacks: [{ provider: "anthropic", model: "claude-sonnet-5" }],
    });
    await fakes.script("anthropic", anthropicText("Hi from Sonnet 5."));
    expect(sentText(await say("hello, Claude", { count: 2 }))).toBe("Hi from Sonnet 5.");
    const [notice] = await fakes.requests("telegram", { method: "sendMessage" });
    expect(sentText(notice)).toContain("claude-3-5-sonnet-20241022 is no longer offered by its provider (retired)");
    const calls = await fakes.requests("anthropic");
    expect(calls.map((call) => (call.body as { model: string }).model)).toEqual([
      "claude-3-5-sonnet-20241022",
      "claude-sonnet-5",
    ]);
  });

  it("a model that is merely refused for a bad request does not fall back to the default", async () => {
    await configure({ provider: "openai", model: "gpt-other" });
    await fakes.script("openai", {
      status: 400,
      body: { error: { message: "Invalid 'messages'.", type: "invalid_request_error", param: "messages", code: null } },
    });
    const answer = await say("hello");
    expect(sentText(answer)).not.toContain("echo:");
    expect((await fakes.requests("openai")).map((call) => (call.body as { model: string }).model)).toEqual([
      "gpt-other",
    ]);
  });
});
