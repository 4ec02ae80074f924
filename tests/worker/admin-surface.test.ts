import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/worker.ts";
import {
  ADMIN_TOKEN,
  admin,
  fakes,
  openaiText,
  PRIVATE_CHAT,
  post,
  say,
  sentText,
  settled,
  textUpdate,
} from "./helpers.ts";

/** The Worker with some variables changed, as a deployment with them would run. */
async function fetchWith(overrides: Partial<typeof env>, path: string, init: RequestInit = {}): Promise<Response> {
  return worker.fetch(new Request(`http://bot.test${path}`, init), { ...env, ...overrides }, createExecutionContext());
}

describe("the admin surface", () => {
  it("stays shut with an ADMIN_TOKEN shorter than 32 characters, and /health and the console say so", async () => {
    const weak = { ADMIN_TOKEN: "short-token-123" };
    const response = await fetchWith(weak, "/admin/chats", { headers: { authorization: "Bearer short-token-123" } });
    expect(response.status).toBe(404);
    const health = await (await fetchWith(weak, "/health")).json<{ problems: string[] }>();
    expect(health.problems).toContainEqual(expect.stringContaining("ADMIN_TOKEN must be at least 32 characters"));
    const page = await fetchWith(weak, "/console/sign-in");
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("ADMIN_TOKEN is too short");
  });

  it("limits wrong tokens per client: past ten a minute it is refused, its right token too, and others are not", async () => {
    const from = { "cf-connecting-ip": "203.0.113.7" };
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      statuses.push((await admin("/chats", { token: `guess-${attempt}`, headers: from })).status);
    }
    // The eleventh wrong try crosses the limit: from then on the client is refused before its token is compared.
    expect(statuses.slice(0, 11)).toEqual(Array(11).fill(401));
    expect(statuses.slice(11)).toEqual([429]);
    expect((await admin("/chats", { headers: from })).status).toBe(429);
    expect((await admin("/chats", { headers: { "cf-connecting-ip": "203.0.113.8" } })).status).toBe(200);
    // The console's sign-in counts against the same client.
    const signIn = await worker.fetch(
      new Request("http://bot.test/console/sign-in", {
        method: "POST",
        headers: { ...from, "content-type": "application/x-www-form-urlencoded", origin: "http://bot.test" },
        body: `token=${ADMIN_TOKEN}`,
      }),
      env,
      createExecutionContext(),
    );
    expect(signIn.status).toBe(429);
  });

  it("an invalid stored config fails closed: no model call, a line in the chat and in /health, until it is fixed", async () => {
    // Written by hand: a budget of the wrong type would otherwise be ignored, and with it `enabled: false`.
    await env.CONFIG.put(
      `chat-config:${PRIVATE_CHAT}`,
      JSON.stringify({ enabled: false, budget: { dailyTokens: "lots" } }),
    );
    const notice = await say("hello");
    expect(sentText(notice)).toContain("settings are invalid (budget.dailyTokens)");
    await settled(PRIVATE_CHAT);
    expect(await fakes.requests("openai")).toHaveLength(0);
    const health = await (await fetchWith({}, "/health")).json<{ ok: boolean; problems: string[] }>();
    expect(health.ok).toBe(false);
    expect(health.problems).toContainEqual(expect.stringContaining("1 chat has an invalid stored config"));
    expect(JSON.stringify(health)).not.toContain(String(PRIVATE_CHAT));

    expect((await admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: "{}" })).status).toBe(200);
    const after = await (await fetchWith({}, "/health")).json<{ problems: string[] }>();
    expect(after.problems.some((line) => line.includes("invalid stored config"))).toBe(false);
    await fakes.script("openai", openaiText("Hi again."));
    await post(textUpdate("hello?"));
    await fakes.wait("openai");
  });
});
