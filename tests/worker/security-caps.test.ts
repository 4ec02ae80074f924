import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { proxyModelCall } from "../../src/durable/model-proxy.ts";
import { type OpenRun, OpenRuns } from "../../src/durable/open-runs.ts";
import { modelKeyOf, runKeyOf } from "../../src/protocol/run-token.ts";
import { TINY_PNG_BASE64 } from "../fakes/server.ts";
import { admin, fakes, PRIVATE_CHAT, postUpdate, textUpdate } from "./helpers.ts";

/**
 * Issue 40.3: caps hold under concurrency. The review's attack: an agent's tool path runs remote calls concurrently,
 * and a cap checked before and recorded after let 8 parallel generate_image calls through against IMAGES_PER_TURN=4.
 */
const call = (token: string, body: unknown) =>
  exports.default.fetch(`http://bot.test/agent/tools/${encodeURIComponent(`chat:${PRIVATE_CHAT}`)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("security: paid calls reserve before they run", () => {
  it("8 parallel generate_image calls with a run's token against 4 images per message: 4 run and are charged", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ provider: "claude-agent", limits: { imagesPerTurn: 4 } }),
    });
    await fakes.script("runner", {
      lines: [{ line: JSON.stringify({ type: "session_init", sessionId: "s" }) }],
      hang: true,
    });
    // Each image takes a while, so that all eight calls are in flight together.
    const slowImage = {
      path: "/openai/v1/images/generations",
      delayMs: 400,
      body: { created: 1, data: [{ b64_json: TINY_PNG_BASE64 }] },
    };
    await fakes.script("openai", ...Array.from({ length: 8 }, () => slowImage));
    await postUpdate(textUpdate("draw eight cats"));
    const [request] = await fakes.wait("runner");
    const token = (request!.body as { toolCallback: { token: string } }).toolCallback.token;

    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        call(token, { name: "generate_image", arguments: JSON.stringify({ prompt: `cat ${index}` }) }).then(
          async (response) => (await response.json()) as { content: string; isError: boolean },
        ),
      ),
    );
    const generated = (await fakes.requests("openai")).filter((call) => call.path.endsWith("/images/generations"));
    expect(generated.length).toBeLessThanOrEqual(4);
    expect(outcomes.filter((outcome) => !outcome.isError)).toHaveLength(generated.length);
    expect(outcomes.filter((outcome) => outcome.isError).map((outcome) => outcome.content)).toContain(
      "Error: One message may use at most 4 images in this chat.",
    );
  });
});

describe("security: the agent's shell cannot call the bot's tools", () => {
  it("the key in the agent CLI's environment opens the model proxy for its run, and not the tools route", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify({ provider: "claude-agent" }) });
    await fakes.script("runner", {
      lines: [{ line: JSON.stringify({ type: "session_init", sessionId: "s" }) }],
      hang: true,
    });
    await postUpdate(textUpdate("draw a cat"));
    const [request] = await fakes.wait("runner");
    const token = (request!.body as { toolCallback: { token: string } }).toolCallback.token;
    const chatKey = `chat:${PRIVATE_CHAT}`;
    // What the runner puts in the CLI's environment (and so the shell's): the run's model key.
    const cliKey = await modelKeyOf(token, chatKey);
    expect(cliKey).not.toContain(token);

    const drawn = await call(cliKey, { name: "generate_image", arguments: JSON.stringify({ prompt: "cat" }) });
    expect(drawn.status).toBe(401);
    expect((await fakes.requests("openai")).filter((call) => call.path.endsWith("/images/generations"))).toEqual([]);

    // The same key opens the model proxy, for the run the Worker opened with it.
    const runs = new Map<string, OpenRun>();
    const ledger = new OpenRuns({
      get: async (key) => runs.get(key),
      put: async (key, run) => void runs.set(key, run),
      delete: async (keys) => {
        for (const key of keys) runs.delete(key);
      },
      all: async () => new Map(runs),
    });
    await ledger.open(await runKeyOf(cliKey), "claude-pinned");
    const answer = await proxyModelCall({
      request: new Request("http://anthropic.internal/v1/messages", {
        method: "POST",
        headers: { "x-api-key": cliKey, "content-type": "application/json" },
        body: JSON.stringify({ model: "x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
      }),
      env,
      containerId: env.AGENT_CONTAINER!.idFromName(chatKey).toString(),
      ledgerFor: () => ledger,
    });
    expect(answer.status).toBe(200);
    await answer.text();
  });
});
