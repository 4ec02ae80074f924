import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { MAX_DELTA_LENGTH } from "../../src/protocol/events.ts";
import { hostNameOf } from "../app.ts";
import { archiveTranscript, parseTranscript } from "../archive.ts";
import { childEnv } from "../child-env.ts";
import { classifyApiError, classifyResultSubtype, classifyThrown } from "../classify.ts";
import { shapeOf } from "../mcp-bridge.ts";
import { buildPrompt, MAX_TRANSCRIPT_CHARS } from "../prompt.ts";
import { redact } from "../redact.ts";
import { deltaPieces } from "../run-output.ts";
import { callWorkerTool } from "../worker-tools.ts";
import { chatDirectoryName, ensureChatDirectories } from "../workspace.ts";
import { FakeToolEndpoint } from "./helpers.ts";

/** The runner's pure parts, without the SDK. */

describe("buildPrompt", () => {
  const history = [
    { role: "user" as const, content: "Hi, I am Ada." },
    { role: "assistant" as const, content: "", toolCalls: [{ id: "c1", name: "remember", arguments: "{}" }] },
    { role: "tool" as const, toolCallId: "c1", toolName: "remember", content: "Remembered (id 1)." },
    { role: "assistant" as const, content: "Hello Ada!" },
    { role: "user" as const, content: "first new" },
    { role: "user" as const, content: "second new" },
  ];

  it("gives a resumed session only the messages after the last assistant message", () => {
    expect(buildPrompt(history, true)).toBe("first new\n\nsecond new");
  });

  it("gives a fresh session the earlier conversation first, tool messages skipped", () => {
    expect(buildPrompt(history, false)).toBe(
      "Conversation so far:\nUser: Hi, I am Ada.\nAssistant: Hello Ada!\n\nNew message:\nfirst new\n\nsecond new",
    );
  });

  it("sends just the message when there is no earlier conversation", () => {
    expect(buildPrompt([{ role: "user", content: "hello" }], false)).toBe("hello");
  });

  it("keeps the transcript bounded, newest messages first to stay", () => {
    const long = Array.from({ length: 200 }, (_, index) => ({
      role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `message ${index} ${"x".repeat(1_000)}`,
    }));
    const prompt = buildPrompt([...long, { role: "user", content: "now" }], false);
    expect(prompt.length).toBeLessThan(MAX_TRANSCRIPT_CHARS + 200);
    expect(prompt).toContain("[earlier messages left out]");
    expect(prompt).toContain("message 199");
    expect(prompt).not.toContain("message 0 ");
    expect(prompt.endsWith("New message:\nnow")).toBe(true);
  });
});

describe("shapeOf", () => {
  it("converts a tool's JSON Schema to a zod shape with required, optional and descriptions", () => {
    const source = z.object({
      fact: z.string().min(1).describe("The fact."),
      id: z.number().int().positive().optional(),
      tags: z.array(z.string()).optional(),
      mode: z.enum(["a", "b"]).optional(),
      flag: z.boolean().optional(),
    });
    const shape = shapeOf(z.toJSONSchema(source) as Record<string, unknown>);
    const schema = z.object(shape);
    expect(Object.keys(shape).sort()).toEqual(["fact", "flag", "id", "mode", "tags"]);
    expect(schema.safeParse({ fact: "x", id: 2, tags: ["t"], mode: "a", flag: true }).success).toBe(true);
    expect(schema.safeParse({ id: 2 }).success).toBe(false);
    expect(schema.safeParse({ fact: "x", mode: "c" }).success).toBe(false);
    expect(JSON.stringify(z.toJSONSchema(schema))).toContain("The fact.");
  });

  it("accepts what it cannot describe rather than failing", () => {
    const shape = shapeOf({ type: "object", properties: { odd: { $ref: "#/$defs/nowhere" } }, required: ["odd"] });
    expect(z.object(shape).safeParse({ odd: { anything: [1] } }).success).toBe(true);
    expect(shapeOf({ type: "string" })).toEqual({});
  });
});

describe("callWorkerTool", () => {
  const endpoint = new FakeToolEndpoint();
  beforeAll(() => endpoint.start());
  afterAll(() => endpoint.close());
  const callback = () => ({ url: `${endpoint.url}/agent/tools/chat%3A1`, token: endpoint.token });

  it("posts the call with the bearer token and returns the Worker's answer", async () => {
    endpoint.reset();
    endpoint.answer = (name, argumentsText) => ({
      status: 200,
      body: { content: `${name} ${argumentsText}`, isError: false },
    });
    const answer = await callWorkerTool(callback(), "remember", { fact: "x" }, { timeoutMs: 5_000 });
    expect(answer).toEqual({ content: [{ type: "text", text: 'remember {"fact":"x"}' }], isError: false });
    expect(endpoint.calls).toEqual([
      {
        path: "/agent/tools/chat%3A1",
        authorization: `Bearer ${endpoint.token}`,
        body: { name: "remember", arguments: '{"fact":"x"}' },
      },
    ]);
  });

  it("passes a tool's own error result through", async () => {
    endpoint.answer = () => ({ status: 200, body: { content: "No fact with id 9.", isError: true } });
    expect(await callWorkerTool(callback(), "forget", { id: 9 }, { timeoutMs: 5_000 })).toEqual({
      content: [{ type: "text", text: "No fact with id 9." }],
      isError: true,
    });
  });

  it("turns a refused token, a malformed answer, a dead endpoint and a timeout into error results", async () => {
    const refused = await callWorkerTool(
      { ...callback(), token: "wrong-token-0123456789" },
      "remember",
      {},
      { timeoutMs: 5_000 },
    );
    expect(refused).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("HTTP 401") }] });

    endpoint.answer = () => ({ status: 200, body: { unexpected: true } });
    const malformed = await callWorkerTool(callback(), "remember", {}, { timeoutMs: 5_000 });
    expect(malformed).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("malformed") }] });

    const dead = await callWorkerTool(
      { url: "http://127.0.0.1:9/x", token: endpoint.token },
      "remember",
      {},
      { timeoutMs: 5_000 },
    );
    expect(dead).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("could not be reached") }] });

    const slow = new FakeToolEndpoint();
    await slow.start();
    slow.answer = () => "hang";
    try {
      const timedOut = await callWorkerTool({ url: slow.url, token: slow.token }, "remember", {}, { timeoutMs: 300 });
      expect(timedOut).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("did not answer") }] });
    } finally {
      await slow.close();
    }
  });
});

describe("archive", () => {
  let directory = "";
  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), "archive-test-"));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  const transcript = [
    { type: "queue-operation", operation: "enqueue" },
    {
      type: "user",
      message: {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>internal</system-reminder>\n" },
          { type: "text", text: "Plan my trip to Oslo" },
        ],
      },
    },
    { type: "user", isMeta: true, message: { role: "user", content: "meta stuff" } },
    { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Sure." }] } },
    {
      type: "assistant",
      message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "WebSearch", input: {} }] },
    },
    {
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "results" }] },
    },
    { type: "assistant", isSidechain: true, message: { role: "assistant", content: [{ type: "text", text: "side" }] } },
    { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Here is a plan." }] } },
  ]
    .map((entry) => JSON.stringify(entry))
    .join("\n");

  it("keeps user and assistant text, merges assistant pieces, drops meta, side chains and tool results", () => {
    expect(parseTranscript(`${transcript}\nnot json\n`)).toEqual([
      { role: "user", text: "Plan my trip to Oslo" },
      { role: "assistant", text: "Sure.\n\n_(used the tool WebSearch)_\n\nHere is a plan." },
    ]);
  });

  it("writes the conversation as Markdown under <cwd>/conversations", async () => {
    const transcriptPath = path.join(directory, "session.jsonl");
    await writeFile(transcriptPath, transcript);
    const file = await archiveTranscript({
      transcriptPath,
      cwd: directory,
      sessionId: "s-1",
      trigger: "auto",
      now: new Date("2026-01-02T03:04:05Z"),
    });
    expect(file).toBe(path.join(directory, "conversations", "2026-01-02-030405-plan-my-trip-to-oslo.md"));
    const markdown = await readFile(file!, "utf8");
    expect(markdown).toContain("# Plan my trip to Oslo");
    expect(markdown).toContain("- Session: s-1");
    expect(markdown).toContain("**User:** Plan my trip to Oslo");
    expect(markdown).toContain("**Assistant:** Sure.");
  });
});

describe("classification", () => {
  it("reads the SDK's error kind, then the API error type, then the status", () => {
    expect(classifyApiError({ kind: "authentication_failed", status: 401 })).toEqual({
      classification: "auth",
      retryable: false,
    });
    expect(classifyApiError({ kind: "server_error", status: 529, errorType: "overloaded_error" })).toEqual({
      classification: "overloaded",
      retryable: true,
    });
    expect(classifyApiError({ kind: "rate_limit", status: 429 })).toEqual({ classification: "quota", retryable: true });
    expect(classifyApiError({ kind: "billing_error", status: 400 })).toEqual({
      classification: "quota",
      retryable: false,
    });
    expect(classifyApiError({ kind: "unknown", status: 400, errorType: "invalid_request_error" })).toEqual({
      classification: "invalid_request",
      retryable: false,
    });
    expect(classifyApiError({ kind: "server_error", status: null, apiError: "connection_failed" })).toEqual({
      classification: "transport",
      retryable: true,
    });
    expect(classifyApiError({ kind: "server_error", status: 500 })).toEqual({
      classification: "internal",
      retryable: true,
    });
    expect(classifyResultSubtype("error_max_budget_usd")).toEqual({ classification: "quota", retryable: false });
    expect(classifyResultSubtype("error_during_execution")).toEqual({ classification: "internal", retryable: true });
    expect(classifyThrown(new Error("Claude Code process terminated by signal SIGKILL"))).toEqual({
      classification: "internal",
      retryable: true,
    });
    expect(classifyThrown(new Error("write EPIPE"))).toEqual({ classification: "transport", retryable: true });
  });
});

describe("redact", () => {
  it("removes keys, tokens and authorization values", () => {
    const previous = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "plain-secret-value-123";
    try {
      const text = redact(
        'key plain-secret-value-123 sk-ant-api03-abcdef "authorization": "Bearer abc.def" x-api-key: zzz token-xyz-0123456789',
        ["token-xyz-0123456789"],
      );
      expect(text).not.toMatch(/plain-secret|sk-ant-api03|abc\.def|zzz|token-xyz/);
    } finally {
      if (previous === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = previous;
    }
  });
});

describe("environment and workspace", () => {
  it("gives the CLI an allow list of the runner's environment, the per-run key and the chat's own directories", () => {
    const env = childEnv({
      base: {
        PATH: "/bin",
        ANTHROPIC_API_KEY: "sk-ant-real-key",
        ANTHROPIC_AUTH_TOKEN: "real-token",
        CLAUDE_CODE_OAUTH_TOKEN: "oauth",
        RUNNER_TOKEN: "runner-secret",
        AWS_SECRET_ACCESS_KEY: "aws",
        HTTPS_PROXY: "http://user:password@proxy",
        HOME: "/root",
        CLAUDE_CONFIG_DIR: "/root/.claude",
        DISABLE_TELEMETRY: "0",
      },
      apiKey: "per-run-key",
      baseUrl: "http://127.0.0.1:9999",
      configDirectory: "/w/.chat-state/c/claude",
      homeDirectory: "/w/.chat-state/c/home",
    });
    expect(env).toEqual({
      PATH: "/bin",
      HOME: "/w/.chat-state/c/home",
      CLAUDE_CONFIG_DIR: "/w/.chat-state/c/claude",
      ANTHROPIC_API_KEY: "per-run-key",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9999",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_TELEMETRY: "0",
      CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
      CLAUDE_AGENT_SDK_CLIENT_APP: expect.any(String),
    });
  });

  it("keeps each chat's config and home apart, outside every workspace", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "chat-dirs-"));
    try {
      const one = await ensureChatDirectories(root, "chat:1");
      const two = await ensureChatDirectories(root, "chat:2");
      expect(new Set([one.config, two.config, one.home, two.home]).size).toBe(4);
      for (const directory of [one.config, one.home]) {
        expect(directory.startsWith(`${one.workspace}/`)).toBe(false);
        expect(directory.startsWith(`${two.workspace}/`)).toBe(false);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("reads the host name of a Host header, without its port", () => {
    expect(hostNameOf("127.0.0.1:8080")).toBe("127.0.0.1");
    expect(hostNameOf("LOCALHOST")).toBe("localhost");
    expect(hostNameOf("[::1]:1")).toBe("[::1]");
    expect(hostNameOf("evil.example:80")).toBe("evil.example");
    expect(hostNameOf("a:b:c")).toBeUndefined();
    expect(hostNameOf("")).toBeUndefined();
    expect(hostNameOf(undefined)).toBeUndefined();
  });

  it("names a chat's directory safely and without collisions", () => {
    expect(chatDirectoryName("chat:-100123:topic:5")).toMatch(/^chat_-100123_topic_5-[0-9a-f]{8}$/);
    expect(chatDirectoryName("../../etc")).not.toContain("/");
    expect(chatDirectoryName("chat:1")).not.toBe(chatDirectoryName("chat_1"));
  });
});

describe("deltaPieces", () => {
  it("keeps a delta whole when it fits, and splits a longer one without breaking a surrogate pair", () => {
    expect(deltaPieces("Hello")).toEqual(["Hello"]);
    expect(deltaPieces("")).toEqual([]);
    const long = `${"a".repeat(MAX_DELTA_LENGTH - 1)}😀${"b".repeat(10)}`;
    const pieces = deltaPieces(long);
    expect(pieces.join("")).toBe(long);
    expect(pieces.every((piece) => piece.length <= MAX_DELTA_LENGTH)).toBe(true);
    expect(pieces[0]!.endsWith("a")).toBe(true);
    expect(pieces[1]!.startsWith("😀")).toBe(true);
  });
});
