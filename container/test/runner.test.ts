import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { namespacedToolName } from "../../src/config/mcp-servers.ts";
import { McpConnection } from "../../src/mcp/connection.ts";
import { resultText } from "../../src/mcp/result-text.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { startFakeMcp } from "../../tests/fakes/mcp-server.ts";
import { chatDirectoryName } from "../workspace.ts";
import { isMainLoop, messagesText, toolResults, USAGE } from "./fake-anthropic.ts";
import {
  payloadFor,
  postRun,
  RUN_HEADERS,
  RunnerProcess,
  runnerAgainstFakes,
  streamRun,
  TEST_API_KEY,
} from "./helpers.ts";

/**
 * The runner end to end: `node container/server.ts` as a child process, the real Claude Agent SDK and its CLI,
 * against a fake Messages API and a fake Worker tool endpoint on 127.0.0.1.
 */

const { api, worker, runner } = runnerAgainstFakes();

const types = (events: readonly AgentEvent[]) => events.map((event) => event.type);
const of = <T extends AgentEvent["type"]>(events: readonly AgentEvent[], type: T) =>
  events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);

describe("POST /run", () => {
  it("forwards the SDK's partial messages as text_delta events: the preamble before its tool, the answer before the result", async () => {
    const chatKey = "chat:1003";
    const answerText = "The file is written and it says hello from the stream.";
    api.respond = (body) => {
      if (!isMainLoop(body)) return undefined;
      if (toolResults(body).has("toolu_stream_1"))
        return { kind: "message", blocks: [{ type: "text", text: answerText }] };
      return {
        kind: "message",
        blocks: [
          { type: "text", text: "Let me write it first." },
          { type: "tool_use", id: "toolu_stream_1", name: "Bash", input: { command: "echo hello > s.txt" } },
        ],
      };
    };

    const answer = await postRun(
      runner.url,
      payloadFor(chatKey, { history: [{ role: "user", content: "Write s.txt" }] }),
    );

    expect(answer.status).toBe(200);
    const events = answer.events;
    const toolAt = events.findIndex((event) => event.type === "tool_start");
    const resultAt = events.findIndex((event) => event.type === "result");
    expect(toolAt).toBeGreaterThan(0);
    const before = of(events.slice(0, toolAt), "text_delta").map((event) => event.text);
    const after = of(events.slice(toolAt, resultAt), "text_delta").map((event) => event.text);
    expect(before.join("")).toBe("Let me write it first.");
    expect(after.length).toBeGreaterThan(1);
    expect(after.join("")).toBe(answerText);
    expect(of(events, "result")[0]!.text).toBe(answerText);
    expect(of(events.slice(resultAt), "text_delta")).toHaveLength(0);
  });

  it("runs a turn with a built-in tool: session_init, tool_start, usage, result", async () => {
    const chatKey = "chat:1001";
    api.respond = (body) => {
      if (!isMainLoop(body)) return undefined;
      if (toolResults(body).has("toolu_bash_1"))
        return { kind: "message", blocks: [{ type: "text", text: "Done: the file is written." }] };
      return {
        kind: "message",
        blocks: [
          { type: "text", text: "Let me write it." },
          {
            type: "tool_use",
            id: "toolu_bash_1",
            name: "Bash",
            input: { command: "echo hello-from-bash > proof.txt", description: "Write the proof file" },
          },
        ],
      };
    };

    const answer = await postRun(
      runner.url,
      payloadFor(chatKey, {
        history: [
          { role: "user", content: "Hi, I am Ada." },
          { role: "assistant", content: "Hello Ada!" },
          { role: "user", content: "Please write proof.txt." },
        ],
      }),
    );

    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe("application/x-ndjson");
    const { events } = answer; // every line was parsed with agentEventSchema
    expect(types(events)[0]).toBe("session_init");
    expect(of(events, "tool_start")).toEqual([
      { type: "tool_start", toolName: "Bash", preview: expect.stringContaining("echo hello-from-bash") },
    ]);
    const usage = of(events, "usage");
    expect(usage).toHaveLength(1);
    expect(usage[0]!.outputTokens).toBeGreaterThan(0);
    expect(usage[0]!.inputTokens).toBeGreaterThanOrEqual(USAGE.input + USAGE.cacheRead + USAGE.cacheWrite);
    expect(events.at(-1)).toEqual({ type: "result", text: "Done: the file is written." });
    expect(types(events).indexOf("usage")).toBe(events.length - 2);
    expect(types(events).filter((type) => type === "result" || type === "error")).toEqual(["result"]);

    // The tool really ran in the chat's workspace, and its output went back to the model.
    const proof = path.join(runner.workspaceRoot, chatDirectoryName(chatKey), "proof.txt");
    expect(existsSync(proof)).toBe(true);
    expect((await readFile(proof, "utf8")).trim()).toBe("hello-from-bash");
    const main = api.mainRequests();
    expect(main.length).toBeGreaterThanOrEqual(2);
    expect(toolResults(main.at(-1)!.body).has("toolu_bash_1")).toBe(true);

    // A fresh session gets the earlier conversation as context, the Worker's prompt is appended to the preset.
    const first = main[0]!;
    expect(messagesText(first.body)).toContain("Conversation so far:");
    expect(messagesText(first.body)).toContain("User: Hi, I am Ada.");
    expect(messagesText(first.body)).toContain("Assistant: Hello Ada!");
    expect(messagesText(first.body)).toContain("Please write proof.txt.");
    expect(JSON.stringify(first.body!.system)).toContain("MARKER-SYSTEM-PROMPT");
    expect(first.body!.model).toBe("claude-test-model");
    expect(first.headers["x-api-key"]).toBe(TEST_API_KEY);

    // Nothing secret leaves the runner.
    expect(answer.lines.join("\n")).not.toContain(TEST_API_KEY);
  });

  it("resumes a session: same session id, and the model sees the earlier turn", async () => {
    const chatKey = "chat:1002";
    api.respond = (body) => {
      if (!isMainLoop(body)) return undefined;
      const text = messagesText(body);
      return {
        kind: "message",
        blocks: [{ type: "text", text: text.includes("second question") ? "second answer" : "first answer" }],
      };
    };

    const first = await postRun(
      runner.url,
      payloadFor(chatKey, { history: [{ role: "user", content: "first question" }] }),
    );
    expect(first.events.at(-1)).toEqual({ type: "result", text: "first answer" });
    const sessionId = of(first.events, "session_init")[0]!.sessionId;

    const second = await postRun(
      runner.url,
      payloadFor(chatKey, {
        sessionId,
        history: [
          { role: "user", content: "first question" },
          { role: "assistant", content: "first answer" },
          { role: "user", content: "second question" },
        ],
      }),
    );
    expect(second.events.at(-1)).toEqual({ type: "result", text: "second answer" });
    expect(of(second.events, "session_init").map((event) => event.sessionId)).toEqual([sessionId]);

    // The resumed request carries the earlier turn from the session, and only the new message as the prompt.
    const last = api.mainRequests().at(-1)!;
    const text = messagesText(last.body);
    expect(text).toContain("first question");
    expect(text).toContain("first answer");
    expect(text).toContain("second question");
    expect(text).not.toContain("Conversation so far:");
  });

  it("starts a new session with the history when the given session is not on this runner", async () => {
    const chatKey = "chat:1003";
    const stale = "0b5e2a5c-1d2e-4f00-9a6b-000000000001";
    api.respond = (body) =>
      isMainLoop(body) ? { kind: "message", blocks: [{ type: "text", text: "fresh answer" }] } : undefined;

    const answer = await postRun(
      runner.url,
      payloadFor(chatKey, {
        sessionId: stale,
        history: [
          { role: "user", content: "remember the word PINEAPPLE" },
          { role: "assistant", content: "I will." },
          { role: "user", content: "which word?" },
        ],
      }),
    );
    expect(answer.events.at(-1)).toEqual({ type: "result", text: "fresh answer" });
    const sessions = of(answer.events, "session_init");
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.sessionId).not.toBe(stale);
    expect(of(answer.events, "adapter_stderr").some((event) => event.message.includes("not on this runner"))).toBe(
      true,
    );
    const text = messagesText(api.mainRequests()[0]!.body);
    expect(text).toContain("Conversation so far:");
    expect(text).toContain("PINEAPPLE");
  });

  it("bridges the bot's tools: mcp__bot__remember round-trips through the Worker endpoint", async () => {
    const chatKey = "chat:1004";
    worker.answer = (name) =>
      name === "remember"
        ? { status: 200, body: { content: "Remembered (id 1).", isError: false } }
        : { status: 404, body: {} };
    api.respond = (body) => {
      if (!isMainLoop(body)) return undefined;
      if (toolResults(body).has("toolu_mcp_1"))
        return { kind: "message", blocks: [{ type: "text", text: "Saved it." }] };
      return {
        kind: "message",
        blocks: [{ type: "tool_use", id: "toolu_mcp_1", name: "mcp__bot__remember", input: { fact: "x" } }],
      };
    };

    const answer = await postRun(
      runner.url,
      payloadFor(chatKey, {
        history: [{ role: "user", content: "remember x" }],
        tools: [
          {
            name: "remember",
            description: "Saves a fact about this chat.",
            inputSchema: {
              type: "object",
              properties: {
                fact: {
                  type: "string",
                  minLength: 1,
                  maxLength: 500,
                  description: "The fact, written so it makes sense on its own.",
                },
              },
              required: ["fact"],
              additionalProperties: false,
            },
          },
        ],
        toolCallback: { url: `${worker.url}/agent/tools/${encodeURIComponent(chatKey)}`, token: worker.token },
      }),
    );

    expect(answer.events.at(-1)).toEqual({ type: "result", text: "Saved it." });
    expect(of(answer.events, "tool_start")).toEqual([
      { type: "tool_start", toolName: "remember", preview: '{"fact":"x"}' },
    ]);
    expect(worker.calls).toEqual([
      {
        path: `/agent/tools/${encodeURIComponent(chatKey)}`,
        authorization: `Bearer ${worker.token}`,
        body: { name: "remember", arguments: '{"fact":"x"}' },
      },
    ]);

    const main = api.mainRequests();
    // The model was offered the tool with its schema…
    const offered = main[0]!.body!.tools!.find((tool) => tool.name === "mcp__bot__remember");
    expect(offered?.description).toBe("Saves a fact about this chat.");
    expect(JSON.stringify(offered?.input_schema)).toContain("The fact, written so it makes sense on its own.");
    // …and got the Worker's answer as the tool result.
    const result = toolResults(main.at(-1)!.body).get("toolu_mcp_1");
    expect(JSON.stringify(result?.content)).toContain("Remembered (id 1).");
    expect(result?.is_error ?? false).toBe(false);
    expect(answer.lines.join("\n")).not.toContain(worker.token);
  });

  it("bridges a chat's MCP server tool (calc__add, listed from a real MCP server) as mcp__bot__calc__add", async () => {
    const chatKey = "chat:1005";
    const mcp = await startFakeMcp();
    // The Worker's side, as src/mcp does it: the server listed through the SDK client, its tools namespaced.
    const connection = new McpConnection(
      { name: "calc", url: `${mcp.url}/open/mcp`, headers: {}, secrets: [] },
      { timeoutMs: 10_000 },
    );
    try {
      const listed = (await connection.listTools()).find((tool) => tool.name === "add")!;
      worker.answer = async (name, argumentsText) => {
        if (name !== namespacedToolName("calc", "add")) return { status: 404, body: {} };
        const result = await connection.callTool("add", JSON.parse(argumentsText));
        return { status: 200, body: { content: resultText(result), isError: result.isError === true } };
      };
      api.respond = (body) => {
        if (!isMainLoop(body)) return undefined;
        if (toolResults(body).has("toolu_calc_1"))
          return { kind: "message", blocks: [{ type: "text", text: "It is 9." }] };
        return {
          kind: "message",
          blocks: [{ type: "tool_use", id: "toolu_calc_1", name: "mcp__bot__calc__add", input: { a: 4, b: 5 } }],
        };
      };

      const answer = await postRun(
        runner.url,
        payloadFor(chatKey, {
          history: [{ role: "user", content: "add 4 and 5" }],
          tools: [
            {
              name: namespacedToolName("calc", "add"),
              description: listed.description,
              inputSchema: listed.inputSchema,
            },
          ],
          toolCallback: { url: `${worker.url}/agent/tools/${encodeURIComponent(chatKey)}`, token: worker.token },
        }),
      );

      expect(answer.events.at(-1)).toEqual({ type: "result", text: "It is 9." });
      expect(worker.calls.map((call) => call.body)).toEqual([{ name: "calc__add", arguments: '{"a":4,"b":5}' }]);
      expect(mcp.calls).toEqual([{ path: "/open/mcp", tool: "add", arguments: { a: 4, b: 5 } }]);
      const main = api.mainRequests();
      const offered = main[0]!.body!.tools!.find((tool) => tool.name === "mcp__bot__calc__add");
      expect(offered?.description).toBe("Adds two numbers.");
      expect(JSON.stringify(offered?.input_schema)).toContain('"a"');
      const result = toolResults(main.at(-1)!.body).get("toolu_calc_1");
      expect(JSON.stringify(result?.content)).toContain("The sum is 9.");
    } finally {
      await connection.close();
      await mcp.close();
    }
  });

  it("turns a failing Worker tool endpoint into an error result for the model, not a failed run", async () => {
    const chatKey = "chat:1005";
    worker.answer = () => ({ status: 500, body: { error: "internal" } });
    api.respond = (body) => {
      if (!isMainLoop(body)) return undefined;
      if (toolResults(body).has("toolu_mcp_2"))
        return { kind: "message", blocks: [{ type: "text", text: "The tool failed." }] };
      return {
        kind: "message",
        blocks: [{ type: "tool_use", id: "toolu_mcp_2", name: "mcp__bot__remember", input: { fact: "y" } }],
      };
    };
    const answer = await postRun(
      runner.url,
      payloadFor(chatKey, {
        tools: [
          {
            name: "remember",
            description: "Saves a fact.",
            inputSchema: { type: "object", properties: { fact: { type: "string" } }, required: ["fact"] },
          },
        ],
        toolCallback: { url: `${worker.url}/agent/tools/x`, token: worker.token },
      }),
    );
    expect(answer.events.at(-1)).toEqual({ type: "result", text: "The tool failed." });
    expect(worker.calls).toHaveLength(1);
    const result = toolResults(api.mainRequests().at(-1)!.body).get("toolu_mcp_2");
    expect(result?.is_error).toBe(true);
    expect(JSON.stringify(result?.content)).toContain("HTTP 500");
  });

  it("ends with a transport error when the API connection drops mid-stream", async () => {
    api.respond = (body) => (isMainLoop(body) ? { kind: "drop" } : undefined);
    const answer = await postRun(runner.url, payloadFor("chat:1006"));
    const last = answer.events.at(-1);
    expect(last).toMatchObject({ type: "error", classification: "transport", retryable: true });
    expect(of(answer.events, "result")).toHaveLength(0);
    expect(of(answer.events, "error")).toHaveLength(1);
  });

  it("ends with an error event when the CLI process dies mid-run", async () => {
    api.respond = (body) => (isMainLoop(body) ? { kind: "hang" } : undefined);
    const pending = postRun(runner.url, payloadFor("chat:1007"));
    await api.waitFor(() => api.mainRequests().length > 0, 30_000, "the CLI's API request");
    const pids = await runner.cliPids();
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, "SIGKILL");
    // A killed CLI leaves its messaging socket behind.
    for (const pid of pids) await rm(path.join(os.tmpdir(), "cc-socks", `${pid}.sock`), { force: true });

    const answer = await pending;
    expect(answer.status).toBe(200);
    const last = answer.events.at(-1);
    expect(last).toMatchObject({ type: "error", retryable: true });
    expect(["internal", "transport"]).toContain((last as { classification: string }).classification);
    expect(of(answer.events, "error")).toHaveLength(1);
  });

  it("classifies an API authentication failure as a non-retryable auth error", async () => {
    api.respond = (body) =>
      isMainLoop(body)
        ? { kind: "error", status: 401, type: "authentication_error", message: "invalid x-api-key" }
        : undefined;
    const answer = await postRun(runner.url, payloadFor("chat:1008"));
    expect(answer.events.at(-1)).toMatchObject({ type: "error", classification: "auth", retryable: false });
    expect(answer.lines.join("\n")).not.toContain(TEST_API_KEY);
  });

  it("classifies an overloaded API as retryable", async () => {
    api.respond = (body) =>
      isMainLoop(body) ? { kind: "error", status: 529, type: "overloaded_error", message: "Overloaded" } : undefined;
    const answer = await postRun(runner.url, payloadFor("chat:1009"));
    expect(answer.events.at(-1)).toMatchObject({ type: "error", classification: "overloaded", retryable: true });
  });

  it("archives the transcript as Markdown before a compaction (PreCompact hook)", async () => {
    const chatKey = "chat:1010";
    api.respond = (body) =>
      isMainLoop(body) && messagesText(body).includes("tell me about otters")
        ? { kind: "message", blocks: [{ type: "text", text: "Otters hold hands while they sleep." }] }
        : undefined;
    const first = await postRun(
      runner.url,
      payloadFor(chatKey, { history: [{ role: "user", content: "tell me about otters" }] }),
    );
    const sessionId = of(first.events, "session_init")[0]!.sessionId;

    const second = await postRun(
      runner.url,
      payloadFor(chatKey, {
        sessionId,
        history: [
          { role: "user", content: "tell me about otters" },
          { role: "assistant", content: "Otters hold hands while they sleep." },
          { role: "user", content: "/compact" },
        ],
      }),
    );
    expect(second.events.at(-1)?.type).toBe("result");
    expect(
      of(second.events, "adapter_stderr").some((event) => event.message.includes("archived the conversation")),
    ).toBe(true);
    const directory = path.join(runner.workspaceRoot, chatDirectoryName(chatKey), "conversations");
    const files = (await readdir(directory)).filter((file) => file.endsWith(".md"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/tell-me-about-otters\.md$/);
    const markdown = await readFile(path.join(directory, files[0]!), "utf8");
    expect(markdown).toContain("**User:** tell me about otters");
    expect(markdown).toContain("**Assistant:** Otters hold hands while they sleep.");
    expect(markdown).toContain(sessionId);
  });
});

describe("bad requests and concurrency", () => {
  it("answers GET /ping", async () => {
    const response = await fetch(`${runner.url}/ping`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
  });

  it("answers HEAD /ping, and refuses other methods and routes with the error envelope", async () => {
    const head = await fetch(`${runner.url}/ping`, { method: "HEAD" });
    expect(head.status).toBe(200);
    const postPing = await fetch(`${runner.url}/ping`, { method: "POST" });
    expect(postPing.status).toBe(405);
    expect(await postPing.json()).toEqual({ error: "method_not_allowed", message: expect.any(String) });
    const getRun = await fetch(`${runner.url}/run`);
    expect(getRun.status).toBe(405);
    expect(await getRun.json()).toMatchObject({ error: "method_not_allowed" });
    const elsewhere = await fetch(`${runner.url}/elsewhere`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual({ error: "not_found", message: expect.any(String) });
  });

  it("refuses a body that is not JSON", async () => {
    const answer = await postRun(runner.url, undefined, { rawBody: "{not json" });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_json" });
  });

  it("refuses a payload without a model, naming the field", async () => {
    const { model: _model, ...payload } = payloadFor("chat:1101");
    const answer = await postRun(runner.url, payload);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_request", message: expect.stringContaining("model") });
  });

  it("refuses a body that is not sent as JSON (so a web page cannot post one cross-site)", async () => {
    const response = await fetch(`${runner.url}/run`, {
      method: "POST",
      headers: { ...RUN_HEADERS, "content-type": "text/plain" },
      body: JSON.stringify(payloadFor("chat:1104")),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: "unsupported_media_type" });
    expect(api.requests).toHaveLength(0);
  });

  it("wants RUNNER_TOKEN as a bearer token", async () => {
    const guarded = await new RunnerProcess().start(api.url, { RUNNER_TOKEN: "runner-secret-0123456789" });
    try {
      const post = (authorization?: string) =>
        fetch(`${guarded.url}/run`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({}),
        });
      const refused = await post();
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: "unauthorized", message: expect.any(String) });
      expect((await post("Bearer wrong")).status).toBe(401);
      // The right token gets past the check to the payload validation.
      expect((await post("Bearer runner-secret-0123456789")).status).toBe(400);
    } finally {
      await guarded.stop();
    }
  });

  it("refuses a body over the size limit", async () => {
    const answer = await postRun(
      runner.url,
      payloadFor("chat:1102", { history: [{ role: "user", content: "x".repeat(3 * 1024 * 1024) }] }),
    );
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ error: "too_large" });
    expect(api.requests).toHaveLength(0);
  });

  it("refuses a body over the size limit that does not declare its length, counting as it arrives", async () => {
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 3; index++) controller.enqueue(chunk);
        controller.close();
      },
    });
    // The runner answers 413 and closes the connection without reading the rest: a client still writing may see the
    // close (EPIPE) before the answer. Either way the body is refused and nothing runs.
    const answer = await fetch(`${runner.url}/run`, {
      method: "POST",
      headers: RUN_HEADERS,
      body,
      duplex: "half",
    }).then(
      async (response) => ({ status: response.status, body: await response.json() }),
      (error: unknown) => ({ status: "closed", body: String((error as { cause?: { code?: string } }).cause?.code) }),
    );
    if (answer.status === "closed") expect(answer.body).toMatch(/EPIPE|ECONNRESET/);
    else expect(answer).toEqual({ status: 413, body: expect.objectContaining({ error: "too_large" }) });
    expect(api.requests).toHaveLength(0);
    // The runner is still there for the next request.
    expect((await fetch(`${runner.url}/ping`)).status).toBe(200);
  });

  it("allows one run per chat at a time, and stops a run whose client went away", async () => {
    const chatKey = "chat:1103";
    let hang = true;
    api.respond = (body) => {
      if (!isMainLoop(body)) return undefined;
      return hang ? { kind: "hang" } : { kind: "message", blocks: [{ type: "text", text: "after the abort" }] };
    };
    const client = new AbortController();
    const first = postRun(runner.url, payloadFor(chatKey), { signal: client.signal }).catch((error: unknown) => error);
    await api.waitFor(() => api.mainRequests().length > 0, 30_000, "the first run's API request");

    const second = await postRun(runner.url, payloadFor(chatKey));
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: "busy" });

    // Another chat is not blocked.
    hang = false;
    const other = await postRun(runner.url, payloadFor("chat:1104"));
    expect(other.events.at(-1)).toEqual({ type: "result", text: "after the abort" });

    // The client leaves: the run is cancelled and the chat is free again (the next run waits for the CLI to close).
    client.abort();
    await first;
    const third = await postRun(runner.url, payloadFor(chatKey));
    expect(third.status, runner.output).toBe(200);
    expect(third.events.at(-1)).toEqual({ type: "result", text: "after the abort" });
    expect(runner.output).toMatch(new RegExp(`run end chat=${chatKey} outcome=error:cancelled`));
  });
});

describe("API retries", () => {
  it("reports a retried API call as adapter_stderr and goes on to the result", async () => {
    const own = await new RunnerProcess().start(api.url, { CLAUDE_CODE_MAX_RETRIES: "1" });
    try {
      let failures = 0;
      api.respond = (body) => {
        if (!isMainLoop(body)) return undefined;
        if (failures++ === 0) return { kind: "error", status: 529, type: "overloaded_error", message: "Overloaded" };
        return { kind: "message", blocks: [{ type: "text", text: "made it" }] };
      };
      const answer = await postRun(own.url, payloadFor("chat:1301"));
      expect(answer.events.at(-1)).toEqual({ type: "result", text: "made it" });
      expect(of(answer.events, "error")).toHaveLength(0);
      expect(of(answer.events, "adapter_stderr").some((event) => /^API retry 1\/1: 529 /.test(event.message))).toBe(
        true,
      );
    } finally {
      await own.stop();
    }
  });
});

describe("shutdown", () => {
  it("on SIGTERM ends the open stream with a cancelled error and exits with 0", async () => {
    const own = await new RunnerProcess().start(api.url);
    try {
      api.respond = (body) => (isMainLoop(body) ? { kind: "hang" } : undefined);
      let sawSession!: () => void;
      const sessionSeen = new Promise<void>((resolve) => (sawSession = resolve));
      const pending = streamRun(own.url, payloadFor("chat:1201"), (event) => {
        if (event.type === "session_init") sawSession();
      });
      // Events are flushed as they happen: session_init arrives while the API call is still hanging.
      await sessionSeen;
      await api.waitFor(() => api.mainRequests().length > 0, 30_000, "the run's API request");

      const signalled = Date.now();
      own.signal("SIGTERM");
      const events = await pending;
      expect(events[0]?.type).toBe("session_init");
      expect(events.at(-1)).toEqual({
        type: "error",
        classification: "cancelled",
        retryable: true,
        message: "the runner is shutting down",
      });
      const exit = await own.waitForExit(10_000);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalled).toBeLessThan(10_000);
    } finally {
      await own.stop();
    }
  });
});
