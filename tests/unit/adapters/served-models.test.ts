import { afterEach, describe, expect, it, vi } from "vitest";
import { servedModels } from "../../../src/adapters/served-models.ts";
import type { Settings } from "../../../src/config/settings.ts";

/** A KV namespace in memory: what servedModels reads and writes, with the options it passes. */
function memoryKv() {
  const values = new Map<string, string>();
  const puts: { key: string; ttl: number | undefined }[] = [];
  const kv = {
    get: async (key: string) => {
      const value = values.get(key);
      return value === undefined ? null : JSON.parse(value);
    },
    put: async (key: string, value: string, options?: { expirationTtl?: number }) => {
      values.set(key, value);
      puts.push({ key, ttl: options?.expirationTtl });
    },
  };
  return { kv, puts };
}

const settings = (overrides: Partial<Settings>) =>
  ({ openaiApiKey: "sk-test", openaiBaseUrl: undefined, anthropicApiKey: undefined, ...overrides }) as Settings;

afterEach(() => vi.unstubAllGlobals());

describe("servedModels", () => {
  it("keeps OpenAI's own chat models, newest first, and caches them in KV for six hours", async () => {
    const { kv, puts } = memoryKv();
    const fetch = vi.fn(async () =>
      Response.json({
        object: "list",
        data: [
          { id: "gpt-5-mini", created: 2 },
          { id: "text-embedding-3-large", created: 9 },
          { id: "gpt-5.1", created: 3 },
          { id: "gpt-image-1", created: 8 },
          { id: "whisper-1", created: 1 },
          { id: "dall-e-3", created: 1 },
          { id: "babbage-002", created: 1 },
        ],
      }),
    );
    vi.stubGlobal("fetch", fetch);
    const sources = { settings: settings({}), kv: kv as unknown as KVNamespace, ai: undefined };
    expect(await servedModels("openai", sources)).toEqual(["gpt-5.1", "gpt-5-mini"]);
    expect(fetch).toHaveBeenCalledWith(
      "https://api.openai.com/v1/models",
      expect.objectContaining({ headers: { authorization: "Bearer sk-test" } }),
    );
    expect(puts).toEqual([{ key: "served-models:openai", ttl: 21_600 }]);
    // Cached: the provider is not asked again.
    expect(await servedModels("openai", sources)).toEqual(["gpt-5.1", "gpt-5-mini"]);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("has nothing to offer without a key, and logs a failure rather than throwing it", async () => {
    const { kv } = memoryKv();
    const sources = { settings: settings({}), kv: kv as unknown as KVNamespace, ai: undefined };
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response("nope", { status: 500 })),
    );
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(await servedModels("anthropic", sources)).toBeUndefined();
    expect(await servedModels("openai", sources)).toBeUndefined();
    expect(warn).toHaveBeenCalledWith("openai: its models list could not be read", expect.stringContaining("500"));
    expect(await servedModels("workers-ai", sources)).toBeUndefined();
  });
});
