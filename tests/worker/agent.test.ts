import { createExecutionContext, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_MODELS } from "../../src/config/providers.ts";
import { AgentContainer } from "../../src/durable/agent-container.ts";
import { MAX_MODEL_CALLS_PER_MINUTE, proxyModelCall } from "../../src/durable/model-proxy.ts";
import { type OpenRun, OpenRuns } from "../../src/durable/open-runs.ts";
import { WORKER_CALLBACK_HOST } from "../../src/protocol/run-payload.ts";
import { mintRunToken, runKeyOf } from "../../src/protocol/run-token.ts";
import worker from "../../src/worker.ts";
import type { ScriptedResponse } from "../fakes/server.ts";
import {
  admin,
  fakes,
  meanGapMs,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
  session,
  storedHistory,
  textUpdate,
} from "./helpers.ts";

const line = (event: unknown, delayMs = 0) => ({ line: JSON.stringify(event), delayMs });
const runner = (
  lines: { line: string; delayMs?: number }[],
  extra: Partial<ScriptedResponse> = {},
): ScriptedResponse => ({ lines, ...extra });
const useAgent = () =>
  admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify({ provider: "claude-agent" }) });

async function historyRoles(): Promise<string[]> {
  return (await storedHistory(PRIVATE_CHAT)).map((message) => message.role);
}

type RunPayload = {
  chatKey: string;
  agent?: string;
  model: string;
  sessionId?: string;
  tools: { name: string }[];
  toolCallback: { url: string; token: string };
  history: { role: string; content: string }[];
};

describe("claude-agent through AGENT_RUNNER_URL", () => {
  it("streams the runner's events: a status line for the current step, the answer, and the session kept for resuming", async () => {
    await useAgent();
    await fakes.script(
      "runner",
      runner([
        line({ type: "session_init", sessionId: "session-abc" }),
        line({ type: "tool_start", toolName: "Bash", preview: '{"command":"ls"}' }),
        line({ type: "usage", inputTokens: 100, outputTokens: 20 }),
        line({ type: "result", text: "There are **3** files." }),
      ]),
    );
    const answer = await say("how many files?", { count: 2 });
    expect(sentText(answer)).toBe("There are <b>3</b> files.");
    const sent = await fakes.requests("telegram", { method: "sendMessage" });
    expect(sentText(sent[0])).toContain("⚙️ Bash");
    expect(await fakes.requests("telegram", { method: "deleteMessage" })).toHaveLength(1);

    const payload = (await fakes.requests("runner"))[0]!.body as RunPayload;
    expect(payload.chatKey).toBe(`chat:${PRIVATE_CHAT}`);
    expect(payload.model).toBe(DEFAULT_MODELS["claude-agent"]);
    expect(payload.sessionId).toBeUndefined();
    expect(payload.tools.map((tool) => tool.name)).toContain("remember");
    expect(payload.toolCallback.url).toBe(`http://127.0.0.1:8787/agent/tools/chat%3A${PRIVATE_CHAT}`);
    expect(payload.toolCallback.token).toMatch(/^v1\.[\w-]+\.[\w-]{43}$/);
    expect(await historyRoles()).toEqual(["user", "assistant"]);

    await fakes.script(
      "runner",
      runner([line({ type: "session_init", sessionId: "session-abc" }), line({ type: "result", text: "Still 3." })]),
    );
    await say("and now?", { count: 3 });
    const second = (await fakes.requests("runner"))[1]!.body as RunPayload;
    expect(second.sessionId).toBe("session-abc");
    expect(second.toolCallback.token).not.toBe(payload.toolCallback.token);
  });

  for (const [name, script, expected] of [
    [
      "a malformed line",
      runner([line({ type: "session_init", sessionId: "s" }), { line: "{this is not json" }]),
      /could not be reached/,
    ],
    ["an unknown event", runner([line({ type: "telepathy", level: 9 })]), /could not be reached/],
    [
      "a stream that ends without a result",
      runner([line({ type: "session_init", sessionId: "s" })]),
      /could not be reached/,
    ],
    [
      "a silent runner",
      runner([line({ type: "session_init", sessionId: "s" })], { hang: true }),
      /did not answer in time/,
    ],
    ["a runner that is down", { status: 503, text: "no container" }, /could not be reached/],
    ["a dropped connection", { destroy: true }, /could not be reached/],
  ] as const) {
    it(`turns ${name} into one clear message and leaves nothing half-written`, async () => {
      await useAgent();
      await fakes.script("runner", script as ScriptedResponse);
      const answer = await say("do the thing");
      expect(sentText(answer)).toMatch(expected);
      expect(await historyRoles()).toEqual(["user"]);
      const inbox = await runInDurableObject(session(PRIVATE_CHAT), (_i, state) =>
        state.storage.sql.exec("SELECT status FROM inbox").one(),
      );
      expect(inbox.status).toBe("failed");
    });
  }

  it("/agent runs one task on the runner for a chat on another provider", async () => {
    await fakes.script(
      "runner",
      runner([line({ type: "session_init", sessionId: "s1" }), line({ type: "result", text: "Task done." })]),
    );
    const answer = await say("/agent summarise the repo");
    expect(sentText(answer)).toBe("Task done.");
    const payload = (await fakes.requests("runner"))[0]!.body as RunPayload;
    expect(payload.history.at(-1)!.content).toBe("summarise the repo");
    expect(await fakes.requests("openai")).toHaveLength(0);
    expect(sentText(await say("/agent", { count: 2 }))).toContain("Usage: /agent &lt;task&gt;");
  });

  it("/stop ends a running agent session at once", async () => {
    await useAgent();
    await fakes.script(
      "runner",
      runner(
        [
          line({ type: "session_init", sessionId: "s" }),
          line({ type: "tool_start", toolName: "Bash", preview: "sleep 600" }),
        ],
        { hang: true },
      ),
    );
    await postUpdate(textUpdate("long job"));
    // The session is under way once its status line shows the running step (waiting for the runner's request alone
    // let a loaded machine take the /stop before the status line went out, and the test miss the message it counted).
    const [status] = await fakes.wait("telegram", { method: "sendMessage" });
    expect(sentText(status)).toContain("Bash");
    await postUpdate(textUpdate("/stop"));
    const sent = await fakes.wait("telegram", { method: "sendMessage", count: 2 });
    expect(sentText(sent[1])).toBe("⏹ Stopped.");
    await expect
      .poll(() =>
        runInDurableObject(
          session(PRIVATE_CHAT),
          (_i, state) =>
            state.storage.sql.exec("SELECT count(*) AS n FROM inbox WHERE status IN ('pending','processing')").one().n,
        ),
      )
      .toBe(0);
    expect((await fakes.requests("telegram", { method: "sendMessage" })).map(sentText)).not.toContain(
      "Nothing is running.",
    );
  });

  it("updates the status line in place at most every two seconds", async () => {
    await useAgent();
    await fakes.script(
      "runner",
      runner([
        line({ type: "session_init", sessionId: "s" }),
        line({ type: "tool_start", toolName: "Glob", preview: "**/*.ts" }),
        line({ type: "tool_start", toolName: "Read", preview: "a.ts" }, 100),
        line({ type: "tool_start", toolName: "Grep", preview: "TODO" }, 100),
        line({ type: "tool_start", toolName: "Edit", preview: "b.ts" }, 2300),
        line({ type: "result", text: "Edited." }, 100),
      ]),
    );
    await say("refactor", { count: 2 });
    const status = (await fakes.requests("telegram", { method: "sendMessage" }))[0]!;
    const edits = await fakes.requests("telegram", { method: "editMessageText" });
    expect(edits.length).toBeGreaterThanOrEqual(1);
    expect(sentText(edits[0])).toContain("Grep");
    // Two seconds apart on average, as received (see meanGapMs); unpaced, the edits would follow the tools 100 ms apart.
    expect(meanGapMs([status, ...edits])).toBeGreaterThanOrEqual(1600);
  });
});

describe("codex-agent through AGENT_RUNNER_URL", () => {
  const configure = (config: Record<string, unknown>) =>
    admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify(config) });
  const payloads = async () => (await fakes.requests("runner")).map((request) => request.body as RunPayload);

  it("answers a codex-agent chat from the runner with Codex's default model, keeping its thread apart from Claude's", async () => {
    await configure({ provider: "codex-agent" });
    await fakes.script(
      "runner",
      runner([
        line({ type: "session_init", sessionId: "thread-codex" }),
        line({ type: "tool_start", toolName: "Shell", preview: "ls" }),
        line({ type: "usage", inputTokens: 40, outputTokens: 9, cacheReadTokens: 8, cacheWriteTokens: 0 }),
        line({ type: "result", text: "Two files." }),
      ]),
    );
    expect(sentText(await say("how many files?", { count: 2 }))).toBe("Two files.");
    const [first] = await payloads();
    expect(first).toMatchObject({ agent: "codex-agent", model: "gpt-6.1-sol" });
    expect(first!.sessionId).toBeUndefined();

    // The chat moves to Claude and back: each agent resumes its own session, never the other's.
    await configure({ provider: "claude-agent" });
    await fakes.script(
      "runner",
      runner([line({ type: "session_init", sessionId: "session-claude" }), line({ type: "result", text: "Claude." })]),
    );
    await say("and you?", { count: 3 });
    await configure({ provider: "codex-agent" });
    await fakes.script(
      "runner",
      runner([line({ type: "session_init", sessionId: "thread-codex" }), line({ type: "result", text: "Codex." })]),
    );
    await say("and now?", { count: 4 });
    const [, claude, codex] = await payloads();
    expect(claude).toMatchObject({ agent: "claude-agent", model: DEFAULT_MODELS["claude-agent"] });
    expect(claude!.sessionId).toBeUndefined();
    expect(codex).toMatchObject({ agent: "codex-agent", sessionId: "thread-codex" });
  });

  it("/agent runs the chat's agent: its provider's, else its config's `agent`, else the Anthropic agent when that key is set", async () => {
    const script = () =>
      fakes.script(
        "runner",
        runner([line({ type: "session_init", sessionId: "s" }), line({ type: "result", text: "ok" })]),
      );
    // On a model provider, with both keys set and no `agent`: Claude.
    await script();
    await say("/agent one");
    // The chat's config names Codex.
    await configure({ agent: "codex-agent" });
    await script();
    await say("/agent two", { count: 2 });
    // The chat's provider is an agent: that one, whatever `agent` says.
    await configure({ provider: "claude-agent", agent: "codex-agent" });
    await script();
    await say("/agent three", { count: 3 });
    expect((await payloads()).map((payload) => payload.agent)).toEqual(["claude-agent", "codex-agent", "claude-agent"]);
    expect(sentText(await say("/agent", { count: 4 }))).toContain("this chat's agent (claude-agent)");
  });

  it("refuses an unknown agent in a chat's config", async () => {
    const refused = await configure({ agent: "gemini-agent" });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("agent");
  });
});

describe("tool calls back from a runner", () => {
  it("have no public route unless AGENT_CALLBACK_URL is set (containers call back through their outbound handler)", async () => {
    const { AGENT_CALLBACK_URL: _unset, ...production } = env;
    const response = await worker.fetch(
      new Request(`http://bot.test/agent/tools/chat%3A${PRIVATE_CHAT}`, {
        method: "POST",
        headers: { authorization: "Bearer x" },
        body: "{}",
      }),
      production as typeof env,
      createExecutionContext(),
    );
    expect(response.status).toBe(404);
  });

  const call = (chatKey: string, token: string, body: unknown) =>
    exports.default.fetch(`http://bot.test/agent/tools/${encodeURIComponent(chatKey)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("run with the running turn's token only, in that chat only", async () => {
    await useAgent();
    await fakes.script("runner", runner([line({ type: "session_init", sessionId: "s" })], { hang: true }));
    await postUpdate(textUpdate("remember things"));
    const [request] = await fakes.wait("runner");
    const token = (request!.body as RunPayload).toolCallback.token;

    expect(
      (await call(`chat:${PRIVATE_CHAT}`, "f".repeat(64), { name: "remember", arguments: '{"fact":"x"}' })).status,
    ).toBe(401);
    expect((await call("chat:1002", token, { name: "remember", arguments: '{"fact":"x"}' })).status).toBe(401);
    // The token names its chat: no other key, made-up or not, is reached with it.
    expect((await call("not-a-chat", token, { name: "remember", arguments: "{}" })).status).toBe(401);
    expect((await call(`chat:${PRIVATE_CHAT}`, token, { name: 5 })).status).toBe(400);
    const ok = await call(`chat:${PRIVATE_CHAT}`, token, {
      name: "remember",
      arguments: '{"fact":"from the container"}',
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ content: "Remembered (id 1).", isError: false });
    expect(await env.DB.prepare("SELECT chat_id, content FROM memories").first()).toEqual({
      chat_id: PRIVATE_CHAT,
      content: "from the container",
    });

    // A token that does not verify is refused in the Worker: no chat object is reached, or created.
    const before = (await listDurableObjectIds(env.CHAT_SESSION)).length;
    const forged = `${token.slice(0, -4)}AAAA`;
    expect((await call("chat:424242", forged, { name: "recall", arguments: "{}" })).status).toBe(401);
    expect((await call("chat:424242", "f".repeat(64), { name: "recall", arguments: "{}" })).status).toBe(401);
    expect((await listDurableObjectIds(env.CHAT_SESSION)).length).toBe(before);

    // Once the turn is over (here: the silent runner times out), the token is dead.
    await fakes.wait("telegram", { method: "sendMessage", count: 1 });
    await expect
      .poll(async () => (await call(`chat:${PRIVATE_CHAT}`, token, { name: "recall", arguments: "{}" })).status)
      .toBe(401);
  });
});

describe("the container's outbound handlers", () => {
  const context = { containerId: "c1", className: "AgentContainer" } as never;

  const chatKey = `chat:${PRIVATE_CHAT}`;
  // The container objects themselves need a container runtime; their ledger is the same class over a Map here.
  const ledgers = new Map<string, OpenRuns>();
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
  const send = (request: Request, key = chatKey) =>
    proxyModelCall({
      request,
      env,
      containerId: env.AGENT_CONTAINER!.idFromName(key).toString(),
      ledgerFor: containerOf,
    });
  const call = (token: string, body: unknown, path = "/v1/messages?beta=true", key = chatKey) =>
    send(
      new Request(`http://anthropic.internal${path}`, {
        method: "POST",
        headers: { "x-api-key": token, authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
      key,
    );
  const ask = { model: "claude-opus-expensive", max_tokens: 500_000, messages: [{ role: "user", content: "hi" }] };

  it("forward a running turn's calls with the real key, its model pinned and max_tokens capped, and record usage", async () => {
    const token = await tokenFor(chatKey, "run-1");
    const runKey = await runKeyOf(token);
    await containerOf(chatKey).open(runKey, "claude-pinned");
    const forwarded = await call(token, ask);
    expect(forwarded.status).toBe(200);
    await forwarded.text();
    const [request] = await fakes.requests("anthropic");
    expect(request!.path).toBe("/anthropic/v1/messages");
    expect(request!.headers["x-api-key"]).toBe("test-anthropic-key");
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.body).toMatchObject({ model: "claude-pinned", max_tokens: 16000 });
    const usage = (await containerOf(chatKey).close(runKey))?.usage;
    expect(usage).toMatchObject({ calls: 1 });
    expect(usage!.inputTokens + usage!.outputTokens).toBeGreaterThan(0);
    // The turn is over: its token opens nothing any more.
    expect((await call(token, ask)).status).toBe(401);
    expect(await fakes.requests("anthropic")).toHaveLength(1);
  });

  it("refuse anything that is not a running turn of this container's chat, before it costs anything", async () => {
    const token = await tokenFor(chatKey, "run-2");
    // Not opened (a token minted but never started here), a placeholder, a forged one, another chat's.
    expect((await call(token, ask)).status).toBe(401);
    expect((await call("added-by-the-worker", ask)).status).toBe(401);
    expect((await call(`${token.slice(0, -2)}xx`, ask)).status).toBe(401);
    const otherKey = `chat:${PRIVATE_CHAT + 1}`;
    const other = await tokenFor(otherKey, "run-3");
    await containerOf(otherKey).open(await runKeyOf(other), "claude-pinned");
    expect((await call(other, ask)).status).toBe(401);
    expect((await call(other, ask, "/v1/messages", otherKey)).status).toBe(200);
    await containerOf(otherKey).close(await runKeyOf(other));

    await containerOf(chatKey).open(await runKeyOf(token), "claude-pinned");
    for (const [method, path] of [
      ["GET", "/v1/files"],
      ["POST", "/v1/messages/batches"],
      ["GET", "/v1/messages"],
    ]) {
      const refused = await send(
        new Request(`http://anthropic.internal${path}`, { method: method!, headers: { "x-api-key": token } }),
      );
      expect(refused.status, `${method} ${path}`).toBe(403);
    }
    await containerOf(chatKey).close(await runKeyOf(token));
    expect(await fakes.requests("anthropic")).toHaveLength(1);
  });

  it(`rate-limit a run to ${MAX_MODEL_CALLS_PER_MINUTE} model calls a minute`, async () => {
    const token = await tokenFor(chatKey, "run-4");
    await containerOf(chatKey).open(await runKeyOf(token), "claude-pinned");
    for (let index = 0; index < MAX_MODEL_CALLS_PER_MINUTE; index++) {
      const answer = await call(token, ask, "/v1/messages/count_tokens");
      expect(answer.status).toBe(200);
      await answer.text();
    }
    const limited = await call(token, ask, "/v1/messages/count_tokens");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await fakes.requests("anthropic")).toHaveLength(MAX_MODEL_CALLS_PER_MINUTE);
    await containerOf(chatKey).close(await runKeyOf(token));
  });

  it("answer tool calls on worker.internal with the same refusals as the public route, never a 500", async () => {
    const callback = AgentContainer.outboundByHost![WORKER_CALLBACK_HOST]!;
    const post = (path: string) =>
      callback(
        new Request(`http://worker.internal${path}`, {
          method: "POST",
          headers: { authorization: "Bearer x", "content-type": "application/json" },
          body: JSON.stringify({ name: "recall", arguments: "{}" }),
        }),
        env,
        context,
      );
    const malformed = await post("/agent/tools/%E0%A4%A");
    expect(malformed.status).toBe(401);
    expect(await malformed.json()).toMatchObject({ error: "unauthorized" });
    expect((await post("/elsewhere")).status).toBe(404);
    expect((await post(`/agent/tools/chat%3A${PRIVATE_CHAT}`)).status).toBe(401);
  });
});
