import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { modelMenu, offeredChoices } from "../../src/commands/model-menu.ts";
import { ChatConfigStore } from "../../src/config/config-store.ts";
import { CATALOG_PRICES } from "../../src/config/model-catalog.ts";
import { DEFAULT_MODELS } from "../../src/config/providers.ts";
import { readSettings } from "../../src/config/settings.ts";
import { servedModelSourcesOf } from "../../src/durable/bindings.ts";
import { tools } from "../../src/tools/index.ts";
import { admin, fakes, PRIVATE_CHAT } from "./helpers.ts";

/** The settings with MODEL_CHOICES unset: /model offers what the providers serve. */
const served = () => readSettings({ ...env, MODEL_CHOICES: "" });

describe("the models the providers serve", () => {
  it("/model offers the fake providers' chat models (their models lists, filtered, cached in KV)", async () => {
    const choices = await offeredChoices(servedModelSourcesOf(env, served()));
    expect(choices).toEqual([
      { provider: "openai", model: "gpt-test" },
      { provider: "openai", model: "gpt-5-mini" },
      { provider: "openai", model: "gpt-5" },
      { provider: "anthropic", model: "claude-sonnet-5" },
      { provider: "anthropic", model: "claude-haiku-4-5" },
      { provider: "anthropic", model: "claude-sonnet-4-5" },
    ]);
    const listed = async () =>
      [...(await fakes.requests("openai")), ...(await fakes.requests("anthropic"))].filter((request) =>
        request.path.endsWith("/v1/models"),
      );
    const asked = await listed();
    expect(asked).toHaveLength(2);
    expect(asked.find((request) => request.service === "anthropic")!.headers["anthropic-version"]).toBe("2023-06-01");
    // Asked again: from KV, without asking the providers.
    expect(await offeredChoices(servedModelSourcesOf(env, served()))).toHaveLength(6);
    expect(await listed()).toHaveLength(2);

    const menu = await modelMenu({
      configs: new ChatConfigStore(env.CONFIG, tools.names),
      settings: served(),
      served: servedModelSourcesOf(env, served()),
      chatId: PRIVATE_CHAT,
      withButtons: true,
    });
    expect(menu.keyboard.flat().map((button) => button.data)).toContain("model:anthropic:claude-sonnet-5");
    expect(menu.keyboard.flat().map((button) => button.text)).not.toContain("text-embedding-3-small");
  });

  it("the owner's MODEL_CHOICES override what the providers serve; the admin API says which is in force", async () => {
    const response = await admin("/models");
    expect(await response.json()).toEqual({
      source: "MODEL_CHOICES",
      choices: [
        { provider: "openai", model: "gpt-test" },
        { provider: "anthropic", model: "claude-sonnet-4-5" },
      ],
    });
    expect((await fakes.requests("openai")).filter((request) => request.path.endsWith("/models"))).toHaveLength(0);
  });

  it("the built-in defaults are the catalog's current models, each with its price", () => {
    expect(DEFAULT_MODELS.openai).toBe("gpt-5-mini");
    expect(DEFAULT_MODELS.anthropic).toBe("claude-sonnet-5");
    for (const provider of ["openai", "anthropic", "workers-ai"] as const) {
      expect(CATALOG_PRICES.get(DEFAULT_MODELS[provider]), provider).toBeDefined();
    }
    // MODEL_PRICES wins over the catalog for a model it names.
    const settings = readSettings({ ...env, MODEL_PRICES: '{"gpt-5-mini": {"input": 9, "output": 9}}' });
    expect(settings.modelPrices.get("gpt-5-mini")).toEqual({ input: 9, output: 9 });
    expect(settings.modelPrices.get("claude-sonnet-5")).toEqual({ input: 2, output: 10 });
  });
});
