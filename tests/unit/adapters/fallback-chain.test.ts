import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/adapters/errors.ts";
import { type ChainLink, FallbackChain } from "../../../src/adapters/fallback-chain.ts";
import type { ModelAdapter, ModelRequest, ModelStreamPart } from "../../../src/adapters/types.ts";
import { readSettings } from "../../../src/config/settings.ts";
import type { Env } from "../../../src/env.ts";
import type { ErrorClassification } from "../../../src/protocol/events.ts";

/** An adapter that fails with `failure` (after streaming `before`, when streamed), or answers with its name. */
function adapter(name: string, failure?: ErrorClassification, before?: string): ModelAdapter & { models: string[] } {
  const models: string[] = [];
  return {
    kind: "model",
    label: name,
    models,
    async generate(request: ModelRequest) {
      models.push(request.model);
      if (failure) throw new ProviderError(failure, `${name} failed`);
      return { message: { role: "assistant", content: name }, finish: { kind: "stop" } };
    },
    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
      models.push(request.model);
      if (before) yield { type: "text_delta", text: before };
      if (failure) throw new ProviderError(failure, `${name} failed`);
      yield { type: "response", response: { message: { role: "assistant", content: name }, finish: { kind: "stop" } } };
    },
  };
}

const request: ModelRequest = { model: "ignored", system: "", messages: [], tools: [] };
const link = (model: string, modelAdapter: ModelAdapter): ChainLink => ({
  provider: "p",
  model,
  adapter: modelAdapter,
});

describe("FallbackChain", () => {
  it("moves on for overloaded, quota, transport and timeout, with each link's own model", async () => {
    for (const failure of ["overloaded", "quota", "transport", "timeout"] as const) {
      const moves: string[] = [];
      const second = adapter("second");
      const chain = new FallbackChain([link("m1", adapter("first", failure)), link("m2", second)], async (move) => {
        moves.push(`${move.from.model}>${move.to.model}:${move.error.classification}`);
      });
      const response = await chain.generate(request);
      expect(response.message.content).toBe("second");
      expect(second.models).toEqual(["m2"]);
      expect(moves).toEqual([`m1>m2:${failure}`]);
      // The rest of the turn stays on the fallback.
      await chain.generate(request);
      expect(second.models).toEqual(["m2", "m2"]);
      expect(chain.current.model).toBe("m2");
    }
  });

  it("does not move on for auth, invalid_request, internal or cancelled", async () => {
    for (const failure of ["auth", "invalid_request", "internal", "cancelled"] as const) {
      const second = adapter("second");
      const chain = new FallbackChain([link("m1", adapter("first", failure)), link("m2", second)], async () => {});
      await expect(chain.generate(request)).rejects.toMatchObject({ classification: failure });
      expect(second.models).toEqual([]);
    }
  });

  it("throws the last link's error at the end of the chain", async () => {
    const chain = new FallbackChain(
      [link("m1", adapter("first", "overloaded")), link("m2", adapter("second", "quota"))],
      async () => {},
    );
    await expect(chain.generate(request)).rejects.toMatchObject({ classification: "quota" });
  });

  it("falls over in a stream only while nothing was streamed", async () => {
    const collect = async (chain: FallbackChain) => {
      const parts: ModelStreamPart[] = [];
      for await (const part of chain.stream(request)) parts.push(part);
      return parts;
    };
    const early = new FallbackChain(
      [link("m1", adapter("first", "overloaded")), link("m2", adapter("second"))],
      async () => {},
    );
    expect((await collect(early)).at(-1)).toMatchObject({ type: "response" });
    const late = new FallbackChain(
      [link("m1", adapter("first", "transport", "half an ans")), link("m2", adapter("second"))],
      async () => {},
    );
    await expect(collect(late)).rejects.toMatchObject({ classification: "transport" });
  });
});

describe("DEFAULT_FALLBACKS", () => {
  const settingsWith = (value: string) => readSettings({ DEFAULT_FALLBACKS: value } as Partial<Env> as Env);

  it("reads provider[:model] entries in order; a model may contain a colon", () => {
    const settings = settingsWith(" anthropic:claude-haiku-4-5 , openai, openai:org/model:free ");
    expect(settings.problems).toEqual([]);
    expect(settings.defaultFallbacks).toEqual([
      { provider: "anthropic", model: "claude-haiku-4-5" },
      { provider: "openai" },
      { provider: "openai", model: "org/model:free" },
    ]);
    expect(settingsWith("").defaultFallbacks).toEqual([]);
  });

  it("reports an unknown or agent provider by name, never its value", () => {
    for (const value of ["claude-agent", "gemini:pro", "openai:", "openai,openai,openai,openai,openai"]) {
      const settings = settingsWith(value);
      expect(settings.defaultFallbacks).toEqual([]);
      expect(settings.problems).toHaveLength(1);
      expect(settings.problems[0]).toMatch(/^DEFAULT_FALLBACKS /);
    }
  });
});
