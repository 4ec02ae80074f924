import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { errorEventOf } from "../../src/adapters/errors.ts";
import { createAdapter } from "../../src/adapters/index.ts";
import { providerSetupOf } from "../../src/config/provider-setup.ts";
import { readSettings } from "../../src/config/settings.ts";
import { adapterSourcesOf } from "../../src/durable/bindings.ts";
import { userFacingError } from "../../src/reply/error-text.ts";
import { fakes } from "./helpers.ts";

/** What a chat on OpenAI is told when its one call fails, with these variables. */
async function toldAfterOneCall(variables: Partial<typeof env>): Promise<string> {
  const settings = readSettings({ ...env, PROVIDER_MAX_RETRIES: "0", ...variables } as typeof env);
  const choice = createAdapter("openai", adapterSourcesOf(env, settings));
  if (choice.kind !== "ready" || choice.adapter.kind !== "model") throw new Error("no OpenAI adapter");
  const error = await choice.adapter
    .generate({ model: "gpt-test", system: "", messages: [{ role: "user", content: "hi" }], tools: [] })
    .then(() => undefined)
    .catch((thrown: unknown) => errorEventOf(thrown, "openai"));
  if (!error) throw new Error("the call did not fail");
  return userFacingError(error, providerSetupOf("openai", settings));
}

describe("what a chat is told when its provider cannot answer", () => {
  it("a local OpenAI-compatible server that is not running: nothing answers there, not an outage", async () => {
    // Port 9 (discard) on loopback: nothing listens in the test environment.
    expect(await toldAfterOneCall({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" })).toBe(
      "⚠️ Nothing answers at OPENAI_BASE_URL (http://127.0.0.1:9) on this machine: the server there is not running, or the address is wrong.",
    );
  });

  it("a refused key: which provider, which variable, and where it is set", async () => {
    await fakes.script("openai", {
      status: 401,
      body: { error: { message: "Incorrect API key provided: sk-wrong…" } },
    });
    expect(await toldAfterOneCall({})).toContain("OpenAI refused this bot's credentials (OPENAI_API_KEY)");
  });

  it("a key that is not set at all is named with where it goes", () => {
    const settings = readSettings({ ...env, OPENAI_API_KEY: "" } as typeof env);
    const choice = createAdapter("openai", adapterSourcesOf(env, settings));
    expect(choice).toEqual({
      kind: "unavailable",
      problem:
        "OPENAI_API_KEY is not set (in .dev.vars locally, with `npx wrangler secret put OPENAI_API_KEY` deployed)",
    });
  });
});
