import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AgentContainer, OPENAI_PROXY_HOST } from "../../src/durable/agent-container.ts";
import { MAX_MODEL_CALLS_PER_MINUTE } from "../../src/durable/model-proxy.ts";
import { proxyResponsesCall } from "../../src/durable/model-proxy-responses.ts";
import { type OpenRun, OpenRuns } from "../../src/durable/open-runs.ts";
import { mintRunToken, runKeyOf } from "../../src/protocol/run-token.ts";
import { recordedEvents, recordedLines } from "../fakes/recorded-events.ts";
import { recordedText, skipWithout } from "../fakes/recorded-fixtures.ts";
import { responsesEvents } from "../fakes/responses-events.ts";
import { fakes, PRIVATE_CHAT } from "./helpers.ts";

/**
 * `http://openai.internal`, the container's only way to OpenAI for `codex-agent`: the Responses API behind the run's
 * token, with the model pinned, the output capped, an allow list of fields and tool types, and the usage metered.
 */
const chatKey = `chat:${PRIVATE_CHAT}`;
const ledgers = new Map<string, OpenRuns>();
/** The container objects need a container runtime; their ledger is the same class over a Map here. */
const containerOf = (key: string): OpenRuns => {
  let ledger = ledgers.get(key);
  if (!ledger) {
    const runs = new Map<string, OpenRun>();
    ledger = new OpenRuns({
      get: async (runKey) => runs.get(runKey),
      put: async (runKey, run) => void runs.set(runKey, run),
      delete: async (runKeys) => {
        for (const runKey of runKeys) runs.delete(runKey);
      },
      all: async () => new Map(runs),
    });
    ledgers.set(key, ledger);
  }
  return ledger;
};
const tokenFor = (key: string, runId: string) =>
  mintRunToken("123456:TEST-TOKEN", { chatKey: key, runId, expiresAt: Date.now() + 600_000 });
async function openRun(runId: string, key = chatKey): Promise<{ token: string; runKey: string }> {
  const token = await tokenFor(key, runId);
  const runKey = await runKeyOf(token);
  await containerOf(key).open(runKey, "gpt-pinned");
  return { token, runKey };
}
const send = (request: Request, key = chatKey) =>
  proxyResponsesCall({
    request,
    env,
    containerId: env.AGENT_CONTAINER!.idFromName(key).toString(),
    ledgerFor: containerOf,
  });
const call = (token: string, body: unknown, options: { path?: string; method?: string; key?: string } = {}) =>
  send(
    new Request(`http://${OPENAI_PROXY_HOST}${options.path ?? "/v1/responses"}`, {
      method: options.method ?? "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "text/event-stream",
        originator: "codex_exec",
        "x-codex-turn-metadata": '{"installation_id":"abc"}',
      },
      ...((options.method ?? "POST") === "POST" ? { body: JSON.stringify(body) } : {}),
    }),
    options.key,
  );
const USAGE = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 200, cache_write_tokens: 0 },
  output_tokens: 34,
  output_tokens_details: { reasoning_tokens: 10 },
  total_tokens: 1234,
};
const streamed = (text: string) => ({
  path: "/openai/v1/responses",
  headers: { "content-type": "text/event-stream" },
  lines: responsesEvents(text, USAGE).map((line) => ({ line })),
});
/** What the Codex CLI sends (recorded from codex-cli 0.169 against the fake Responses API), plus what must not pass. */
const ask = {
  model: "gpt-6.1-sol",
  stream: true,
  input: [
    {
      type: "additional_tools",
      role: "developer",
      tools: [
        { type: "namespace", name: "functions", description: "", tools: [{ type: "custom", name: "exec" }] },
        { type: "web_search", external_web_access: true },
      ],
    },
    { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
  ],
  tools: [
    { type: "function", name: "exec_command", parameters: { type: "object", properties: {} } },
    { type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark", definition: "start: x" } },
    { type: "tool_search", execution: "client", parameters: { type: "object", properties: {} } },
    { type: "web_search", external_web_access: false },
    { type: "image_generation" },
    { type: "mcp", server_label: "elsewhere", server_url: "https://mcp.example" },
    {
      type: "namespace",
      name: "mcp__bot",
      description: "",
      tools: [
        { type: "function", name: "remember" },
        { type: "code_interpreter", container: { type: "auto" } },
      ],
    },
  ],
  tool_choice: "auto",
  parallel_tool_calls: true,
  reasoning: { effort: "low", context: "all_turns" },
  store: true,
  include: ["reasoning.encrypted_content", "web_search_call.action.sources"],
  prompt_cache_key: "thread-1",
  text: { verbosity: "low" },
  client_metadata: { installation_id: "abc" },
  service_tier: "priority",
  metadata: { a: "b" },
  max_output_tokens: 500_000,
};

describe("the Responses API proxy (openai.internal)", () => {
  it("forwards a running turn's call with the real key, its model pinned, output capped, only allowed fields and client tools", async () => {
    const { token, runKey } = await openRun("responses-1");
    await fakes.script("openai", streamed("Hello from upstream."));
    const answer = await call(token, ask);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/event-stream");
    const text = await answer.text();
    expect(text).toContain("Hello ");
    expect(text).toContain("response.completed");

    const [request] = await fakes.requests("openai");
    expect(request!.path).toBe("/openai/v1/responses");
    expect(request!.headers.authorization).toBe("Bearer test-openai-key");
    expect(request!.headers.originator).toBeUndefined();
    expect(request!.headers["x-codex-turn-metadata"]).toBeUndefined();
    const body = request!.body as Record<string, unknown>;
    expect(body.model).toBe("gpt-pinned");
    expect(body.max_output_tokens).toBe(16000);
    expect(body.store).toBe(false);
    for (const dropped of ["client_metadata", "service_tier", "metadata"]) expect(body).not.toHaveProperty(dropped);
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.reasoning).toEqual({ effort: "low", context: "all_turns" });
    expect(body.prompt_cache_key).toBe("thread-1");
    const toolTypes = (tools: unknown) => (tools as Array<{ type: string; tools?: unknown }>).map((tool) => tool.type);
    expect(toolTypes(body.tools)).toEqual(["function", "custom", "tool_search", "namespace"]);
    expect(toolTypes((body.tools as Array<{ tools?: unknown }>)[3]!.tools)).toEqual(["function"]);
    const additional = (body.input as Array<{ type: string; tools?: unknown }>)[0]!;
    expect(toolTypes(additional.tools)).toEqual(["namespace"]);

    // The usage of the stream's last event, as the ledger keeps it (input without the cached tokens).
    expect((await containerOf(chatKey).close(runKey))?.usage).toEqual({
      calls: 1,
      inputTokens: 1000,
      outputTokens: 34,
      cacheReadTokens: 200,
      cacheWriteTokens: 0,
    });
  });

  it("passes a recorded answer of the real API through unchanged and meters its final usage", async ({ skip }) => {
    skipWithout(skip, "openai-web-search-tool.1.chunks.txt");
    const { token, runKey } = await openRun("responses-recorded");
    await fakes.script("openai", { path: "/openai/v1/responses", replay: "openai-web-search-tool.1.chunks.txt" });
    const answer = await call(token, ask);
    const lines = recordedLines(await recordedText("openai-web-search-tool.1.chunks.txt"));
    expect(await answer.text()).toBe(recordedEvents(lines, "responses").join(""));
    // response.completed's usage: 31,073 in, 3,712 of them cached, 4,416 out.
    expect((await containerOf(chatKey).close(runKey))?.usage).toMatchObject({
      calls: 1,
      inputTokens: 27_361,
      outputTokens: 4416,
      cacheReadTokens: 3712,
    });
  });

  it("caps a smaller max_output_tokens at itself, fills in a missing one, and resets a hosted tool_choice", async () => {
    const { token, runKey } = await openRun("responses-2");
    await fakes.script("openai", streamed("a"), streamed("b"));
    await (
      await call(token, { input: "hi", stream: true, max_output_tokens: 300, tool_choice: { type: "web_search" } })
    ).text();
    await (await call(token, { input: "hi", stream: true })).text();
    const [first, second] = await fakes.requests("openai");
    expect(first!.body).toMatchObject({ max_output_tokens: 300, tool_choice: "auto" });
    expect(second!.body).toMatchObject({ max_output_tokens: 16000, model: "gpt-pinned" });
    expect((await containerOf(chatKey).close(runKey))?.usage.calls).toBe(2);
  });

  it("records a call whose client hung up mid-stream, estimated from what was sent and what arrived", async () => {
    const { token, runKey } = await openRun("responses-3");
    const events = responsesEvents("one two three four", USAGE);
    // Everything but the last event (the one with the usage), then the upstream goes quiet.
    await fakes.script("openai", {
      path: "/openai/v1/responses",
      headers: { "content-type": "text/event-stream" },
      lines: events.slice(0, -1).map((line) => ({ line })),
      hang: true,
    });
    const answer = await call(token, ask);
    const reader = answer.body!.getReader();
    let seen = "";
    while (!seen.includes("four")) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    await reader.cancel("the CLI went away");
    const usage = (await containerOf(chatKey).close(runKey))?.usage;
    expect(usage?.calls).toBe(1);
    // The request was about 2 KB (so hundreds of tokens in), the text that arrived a few tokens out.
    expect(usage!.inputTokens).toBeGreaterThan(300);
    expect(usage!.outputTokens).toBeGreaterThanOrEqual(Math.ceil("one two three four".length / 3));
  });

  it("refuses anything that is not a running turn of this container's chat, before it costs anything", async () => {
    const token = await tokenFor(chatKey, "responses-4");
    const refusals = [
      await call(token, ask), // minted, never opened
      await call("sk-placeholder", ask),
      await call(`${token.slice(0, -2)}xx`, ask),
    ];
    const other = await openRun("responses-5", `chat:${PRIVATE_CHAT + 1}`);
    refusals.push(await call(other.token, ask));
    for (const refused of refusals) {
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_api_key" } });
    }

    const { token: open, runKey } = await openRun("responses-6");
    for (const [method, path] of [
      ["GET", "/v1/models"],
      ["POST", "/v1/responses/compact"],
      ["POST", "/v1/chat/completions"],
      ["GET", "/v1/responses"],
    ] as const) {
      expect((await call(open, ask, { method, path })).status, `${method} ${path}`).toBe(403);
    }
    // Server-side state the meter cannot see is refused, not silently dropped.
    const stateful = await call(open, { ...ask, previous_response_id: "resp_123" });
    expect(stateful.status).toBe(400);
    expect(await stateful.json()).toMatchObject({ error: { param: "previous_response_id" } });
    await containerOf(chatKey).close(runKey);
    expect(await fakes.requests("openai")).toHaveLength(0);
  });

  it(`rate-limits a run to ${MAX_MODEL_CALLS_PER_MINUTE} calls a minute, with the API's 429`, async () => {
    const { token, runKey } = await openRun("responses-7");
    await fakes.script("openai", ...Array.from({ length: MAX_MODEL_CALLS_PER_MINUTE }, () => streamed("ok")));
    for (let index = 0; index < MAX_MODEL_CALLS_PER_MINUTE; index++) await (await call(token, ask)).text();
    const limited = await call(token, ask);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: { code: "rate_limit_exceeded" } });
    expect(await fakes.requests("openai")).toHaveLength(MAX_MODEL_CALLS_PER_MINUTE);
    await containerOf(chatKey).close(runKey);
  });

  it("is the container's outbound handler for openai.internal", () => {
    expect(AgentContainer.outboundByHost?.[OPENAI_PROXY_HOST]).toBeTypeOf("function");
  });
});
