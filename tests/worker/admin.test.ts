import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CachedChatConfig, ChatConfigStore } from "../../src/config/config-store.ts";
import { DEFAULT_MODELS } from "../../src/config/providers.ts";
import { admin, GROUP_CHAT, PRIVATE_CHAT } from "./helpers.ts";

const path = (chatId: number) => `/chats/${chatId}/config`;

describe("admin API", () => {
  it("refuses missing and wrong tokens on every route, and writes nothing", async () => {
    const routes: [string, string][] = [
      ["GET", "/chats"],
      ["GET", path(PRIVATE_CHAT)],
      ["PUT", path(PRIVATE_CHAT)],
      ["PATCH", path(PRIVATE_CHAT)],
      ["DELETE", path(PRIVATE_CHAT)],
      ["GET", `/chats/${PRIVATE_CHAT}/mcp`],
      ["GET", "/usage"],
      ["GET", "/openapi.json"],
    ];
    for (const [method, route] of routes) {
      for (const token of [null, "wrong-token", "test-admin-token-longer"]) {
        const body = method === "PUT" || method === "PATCH" ? JSON.stringify({ provider: "openai" }) : undefined;
        const response = await admin(route, { method, token, ...(body ? { body } : {}) });
        expect(response.status, `${method} ${route} with ${token}`).toBe(401);
      }
    }
    expect((await env.CONFIG.list()).keys).toHaveLength(0);
  });

  it("PUT replaces, GET returns, PATCH merges (null removes), DELETE removes", async () => {
    expect((await admin(path(PRIVATE_CHAT))).status).toBe(404);
    const put = await admin(path(PRIVATE_CHAT), {
      method: "PUT",
      body: JSON.stringify({ provider: "anthropic", model: "claude-x", systemPrompt: "Be brief.", tools: ["recall"] }),
    });
    expect(put.status).toBe(200);
    expect(await (await admin(path(PRIVATE_CHAT))).json()).toEqual({
      chatId: PRIVATE_CHAT,
      config: { provider: "anthropic", model: "claude-x", systemPrompt: "Be brief.", tools: ["recall"] },
    });

    const patched = await admin(path(PRIVATE_CHAT), {
      method: "PATCH",
      body: JSON.stringify({ model: null, enabled: false }),
    });
    expect(await patched.json()).toEqual({
      config: { provider: "anthropic", systemPrompt: "Be brief.", tools: ["recall"], enabled: false },
    });

    const replaced = await admin(path(PRIVATE_CHAT), { method: "PUT", body: JSON.stringify({ provider: "openai" }) });
    expect(await replaced.json()).toEqual({ config: { provider: "openai" } });

    await admin(path(GROUP_CHAT), { method: "PUT", body: JSON.stringify({ model: "gpt-group" }) });
    const list = (await (await admin("/chats")).json()) as { chats: { chatId: number }[] };
    expect(list.chats.map((chat) => chat.chatId)).toEqual([GROUP_CHAT, PRIVATE_CHAT]);

    expect((await admin(path(PRIVATE_CHAT), { method: "DELETE" })).status).toBe(204);
    expect((await admin(path(PRIVATE_CHAT), { method: "DELETE" })).status).toBe(404);
    expect((await admin(path(PRIVATE_CHAT))).status).toBe(404);
  });

  it("resolves the effective config: chat, then DEFAULT_PROVIDER / DEFAULT_MODEL, then the provider's default", async () => {
    const none = (await (await admin(`${path(PRIVATE_CHAT)}?effective=1`)).json()) as { effective: unknown };
    expect(none.effective).toMatchObject({
      provider: "openai",
      model: "gpt-test",
      enabled: true,
      source: { provider: "DEFAULT_PROVIDER", model: "DEFAULT_MODEL" },
    });
    await admin(path(PRIVATE_CHAT), { method: "PUT", body: JSON.stringify({ provider: "anthropic" }) });
    const switched = (await (await admin(`${path(PRIVATE_CHAT)}?effective=1`)).json()) as { effective: unknown };
    // DEFAULT_MODEL names an OpenAI model; a chat moved to Anthropic gets Anthropic's default instead.
    expect(switched.effective).toMatchObject({
      provider: "anthropic",
      model: DEFAULT_MODELS.anthropic,
      source: { provider: "chat", model: "built-in" },
    });
  });

  it("refuses bad bodies with 400 naming each bad field, and writes nothing", async () => {
    const cases: [string, string, string[]][] = [
      ["PUT", "{not json", []],
      ["PUT", JSON.stringify({ provider: "gemini" }), ["provider"]],
      ["PUT", JSON.stringify({ tools: ["remember", "rm_rf"] }), ["tools.1"]],
      ["PUT", JSON.stringify({ model: 5, enabled: "yes" }), ["model", "enabled"]],
      ["PUT", JSON.stringify({ systemPrompt: "x".repeat(8001) }), ["systemPrompt"]],
      ["PUT", JSON.stringify({ colour: "blue" }), []],
      ["PATCH", JSON.stringify({ provider: "gemini" }), ["provider"]],
      ["PUT", JSON.stringify([1, 2]), []],
    ];
    for (const [method, body, fields] of cases) {
      const response = await admin(path(PRIVATE_CHAT), { method, body });
      expect(response.status, body.slice(0, 40)).toBe(400);
      const error = (await response.json()) as { message: string; details?: { field: string }[] };
      for (const field of fields) expect(error.details?.map((detail) => detail.field)).toContain(field);
    }
    expect((await admin("/chats/not-a-number/config")).status).toBe(400);
    expect((await env.CONFIG.list()).keys).toHaveLength(0);
  });

  it("refuses chat ids past 2^53 (two of them would name one chat) and malformed escapes in the path", async () => {
    // 9007199254740993 and 9007199254740992 are one number in JavaScript.
    const tooBig = await admin("/chats/9007199254740993/config", {
      method: "PUT",
      body: JSON.stringify({ provider: "openai" }),
    });
    expect(tooBig.status).toBe(400);
    expect((await admin("/usage?chatId=-9007199254740993")).status).toBe(400);
    const malformed = await admin("/chats/%E0%A4%A/config");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: "invalid_request" });
    expect((await env.CONFIG.list()).keys).toHaveLength(0);
  });

  it("serves an OpenAPI document", async () => {
    const document = (await (await admin("/openapi.json")).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/chats", "/chats/{chatId}/config", "/chats/{chatId}/mcp", "/usage"]),
    );
  });

  it("sums usage per chat and per model", async () => {
    const insert = env.DB.prepare(
      "INSERT INTO usage_records (chat_id, kind, provider, model, input_tokens, output_tokens, tool_calls, duration_ms, outcome, created_at) VALUES (?, 'chat', ?, ?, ?, ?, ?, 100, 'ok', ?)",
    );
    await env.DB.batch([
      insert.bind(PRIVATE_CHAT, "openai", "gpt-a", 100, 10, 1, 1),
      insert.bind(PRIVATE_CHAT, "openai", "gpt-a", 50, 5, 0, 2),
      insert.bind(PRIVATE_CHAT, "anthropic", "claude-b", 30, 3, 2, 3),
      insert.bind(GROUP_CHAT, "openai", "gpt-a", 7, 1, 0, 4),
    ]);
    const all = await (await admin("/usage")).json();
    expect(all).toEqual({
      perChat: [
        { chatId: GROUP_CHAT, turns: 1, inputTokens: 7, outputTokens: 1, toolCalls: 0, costUsd: 0 },
        { chatId: PRIVATE_CHAT, turns: 3, inputTokens: 180, outputTokens: 18, toolCalls: 3, costUsd: 0 },
      ],
      perModel: [
        {
          provider: "anthropic",
          model: "claude-b",
          turns: 1,
          inputTokens: 30,
          outputTokens: 3,
          toolCalls: 2,
          costUsd: 0,
        },
        { provider: "openai", model: "gpt-a", turns: 3, inputTokens: 157, outputTokens: 16, toolCalls: 1, costUsd: 0 },
      ],
    });
    const one = (await (await admin(`/usage?chatId=${GROUP_CHAT}`)).json()) as {
      perChat: unknown[];
      perModel: unknown[];
    };
    expect(one.perChat).toHaveLength(1);
    expect(one.perModel).toEqual([
      { provider: "openai", model: "gpt-a", turns: 1, inputTokens: 7, outputTokens: 1, toolCalls: 0, costUsd: 0 },
    ]);
  });
});

describe("a chat object's config cache", () => {
  it("reads KV at most once a minute, and takes changes made through it at once", async () => {
    let now = 1_000_000;
    const kv = new ChatConfigStore(env.CONFIG, ["recall"]);
    const cached = new CachedChatConfig(kv, 60_000, () => now);
    await kv.put(PRIVATE_CHAT, { provider: "openai" });
    expect(await cached.get(PRIVATE_CHAT)).toEqual({ state: "valid", config: { provider: "openai" } });
    await kv.put(PRIVATE_CHAT, { provider: "anthropic" });
    expect(await cached.get(PRIVATE_CHAT)).toEqual({ state: "valid", config: { provider: "openai" } });
    now += 60_001;
    expect(await cached.get(PRIVATE_CHAT)).toEqual({ state: "valid", config: { provider: "anthropic" } });
    await cached.delete(PRIVATE_CHAT);
    expect(await cached.get(PRIVATE_CHAT)).toEqual({ state: "none" });
    cached.remember(PRIVATE_CHAT, { state: "valid", config: { model: "handed-over" } });
    expect(await cached.get(PRIVATE_CHAT)).toEqual({ state: "valid", config: { model: "handed-over" } });
  });

  it("shares a read under way (the object's warm-up, then the turn), and keeps a change remembered meanwhile", async () => {
    class CountingStore extends ChatConfigStore {
      reads = 0;
      override get(chatId: number) {
        this.reads++;
        return super.get(chatId);
      }
    }
    const kv = new CountingStore(env.CONFIG, ["recall"]);
    await kv.put(PRIVATE_CHAT, { provider: "openai" });
    const cached = new CachedChatConfig(kv);
    const [warm, turn] = await Promise.all([cached.get(PRIVATE_CHAT), cached.get(PRIVATE_CHAT)]);
    expect(kv.reads).toBe(1);
    expect(turn).toBe(warm);

    const other = new CachedChatConfig(kv);
    const reading = other.get(GROUP_CHAT);
    other.remember(GROUP_CHAT, { state: "valid", config: { model: "set-meanwhile" } });
    expect(await reading).toEqual({ state: "none" });
    expect(await other.get(GROUP_CHAT)).toEqual({ state: "valid", config: { model: "set-meanwhile" } });
    expect(kv.reads).toBe(2);
  });
});
