import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, fakes, flushUsageNow, openaiText, PRIVATE_CHAT, say, sentText } from "./helpers.ts";

const configure = (config: unknown) =>
  admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify(config) });

/** An Anthropic error answer; `retry-after-ms` keeps the SDK's own retries quick. */
const anthropicError = (status: number, type: string) => ({
  status,
  headers: { "retry-after-ms": "1" },
  body: { type: "error", error: { type, message: `${type} (fake)` } },
});

describe("fallback chains", () => {
  it("answers with the next model when Anthropic is overloaded, says so, and records usage under it", async () => {
    expect(
      (
        await configure({
          provider: "anthropic",
          model: "claude-test",
          fallbacks: [{ provider: "openai", model: "gpt-fallback" }],
        })
      ).status,
    ).toBe(200);
    // PROVIDER_MAX_RETRIES is 2 in the tests: three overloaded answers exhaust the SDK's own retries.
    const overloaded = anthropicError(529, "overloaded_error");
    await fakes.script("anthropic", overloaded, overloaded, overloaded);
    await fakes.script("openai", openaiText("From the fallback.", { prompt_tokens: 40, completion_tokens: 7 }));

    const answer = await say("hello?", { count: 2 });
    expect(sentText(answer)).toBe("From the fallback.");
    const notice = (await fakes.requests("telegram", { method: "sendMessage" }))[0];
    expect(sentText(notice)).toBe("↪️ claude-test is overloaded; gpt-fallback answers instead.");
    expect(await fakes.requests("anthropic")).toHaveLength(3);
    const openai = await fakes.requests("openai");
    expect(openai).toHaveLength(1);
    expect((openai[0]!.body as { model: string }).model).toBe("gpt-fallback");

    await flushUsageNow(PRIVATE_CHAT);
    const rows = await env.DB.prepare("SELECT provider, model, input_tokens, outcome FROM usage_records").all();
    expect(rows.results).toEqual([{ provider: "openai", model: "gpt-fallback", input_tokens: 40, outcome: "ok" }]);
  });

  it("does not fall back when the provider refuses the key", async () => {
    await configure({ provider: "anthropic", model: "claude-test", fallbacks: [{ provider: "openai" }] });
    await fakes.script("anthropic", anthropicError(401, "authentication_error"));
    const answer = await say("hello?");
    expect(sentText(answer)).toContain("refused this bot's credentials");
    expect(await fakes.requests("anthropic")).toHaveLength(1);
    expect(await fakes.requests("openai")).toHaveLength(0);
  });

  it("tries each link in turn and fails with the last error when all are down", async () => {
    await configure({
      provider: "anthropic",
      model: "claude-test",
      fallbacks: [{ provider: "openai", model: "gpt-one" }],
    });
    const overloaded = anthropicError(529, "overloaded_error");
    const limited = { status: 429, headers: { "retry-after-ms": "1" }, body: { error: { message: "slow down" } } };
    await fakes.script("anthropic", overloaded, overloaded, overloaded);
    await fakes.script("openai", limited, limited, limited);
    const answer = await say("hello?", { count: 2 });
    expect(sentText(answer)).toContain("rate-limiting");
  });

  it("validates fallbacks in the admin API", async () => {
    const bad = await configure({ fallbacks: [{ provider: "claude-agent" }, { provider: "openai", extra: 1 }] });
    expect(bad.status).toBe(400);
    const body = JSON.stringify(await bad.json());
    expect(body).toContain("fallbacks");
    const tooMany = await configure({ fallbacks: Array.from({ length: 5 }, () => ({ provider: "openai" })) });
    expect(tooMany.status).toBe(400);
    expect((await configure({ fallbacks: [] })).status).toBe(200);
    const effective = (await (await admin(`/chats/${PRIVATE_CHAT}/config?effective=1`)).json()) as {
      effective: { fallbacks: unknown };
    };
    expect(effective.effective.fallbacks).toEqual([]);
  });
});
