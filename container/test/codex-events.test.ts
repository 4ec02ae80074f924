import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { classifyCodexError } from "../classify.ts";
import { codexArguments, toml } from "../codex-args.ts";
import { CodexEventMapper, PROGRESS_EVERY_MS, parseCodexLine, type UsageTotals, unwrapShell } from "../codex-events.ts";
import { instructionParagraphs, instructionsUpdate } from "../codex-threads.ts";
import { withoutSkillMentions } from "../prompt.ts";

/**
 * The mapping from what the real Codex CLI printed (`record-codex-fixtures.ts` ran `codex exec --json` against the
 * fake Responses API and saved its stdout in fixtures/codex/) to the events the Worker reads.
 */
function fixture(name: string): string[] {
  const text = readFileSync(new URL(`./fixtures/codex/${name}.jsonl`, import.meta.url), "utf8");
  return text.split("\n").filter((line) => line.trim() !== "");
}

function mapped(name: string, previous?: UsageTotals): { events: AgentEvent[]; mapper: CodexEventMapper } {
  const mapper = new CodexEventMapper(previous ? { previous } : {});
  const events: AgentEvent[] = [];
  for (const line of fixture(name)) {
    const parsed = parseCodexLine(line);
    if (parsed.kind !== "event") throw new Error(`${name}: a line the mapping does not read: ${line}`);
    events.push(...mapper.map(parsed.event));
  }
  return { events, mapper };
}

const threadOf = (name: string): string => JSON.parse(fixture(name)[0]!).thread_id;

describe("Codex's JSON events → AgentEvents (recorded from codex-cli, see fixtures/codex/VERSION)", () => {
  it("an answer: the thread as the session, the message as text, this turn's usage, the result", () => {
    const { events, mapper } = mapped("answer");
    expect(events).toEqual([
      { type: "session_init", sessionId: threadOf("answer") },
      { type: "text_delta", text: "Hello! I am the fake model." },
      { type: "usage", inputTokens: 40, outputTokens: 9, cacheReadTokens: 8, cacheWriteTokens: 0 },
      { type: "result", text: "Hello! I am the fake model." },
    ]);
    expect(mapper.totals).toEqual({ input: 40, cachedInput: 8, cacheWrite: 0, output: 9 });
  });

  it("a resumed thread: the CLI reports the thread's totals, so the earlier turns' are taken off", () => {
    expect(threadOf("resume")).toBe(threadOf("answer"));
    const first = mapped("answer").mapper.totals!;
    const { events } = mapped("resume", first);
    expect(events.find((event) => event.type === "usage")).toEqual({
      type: "usage",
      inputTokens: 40,
      outputTokens: 9,
      cacheReadTokens: 8,
      cacheWriteTokens: 0,
    });
    // Without the note of the earlier turns, the whole thread is counted (never less than the turn).
    expect(mapped("resume").events.find((event) => event.type === "usage")).toMatchObject({ inputTokens: 80 });
  });

  it("a call of the bot's tool: the preamble, the tool under its own name with its arguments, then the answer", () => {
    const { events } = mapped("bot-tool");
    expect(events.map((event) => event.type)).toEqual([
      "session_init",
      "text_delta",
      "tool_start",
      "text_delta",
      "usage",
      "result",
    ]);
    expect(events[2]).toEqual({ type: "tool_start", toolName: "remember", preview: '{"fact":"sky is blue"}' });
    expect(events.at(-1)).toEqual({ type: "result", text: "Done: I will remember that the sky is blue." });
  });

  it("a shell command: one tool_start with the command the model wrote, without Codex's shell wrapper", () => {
    const { events } = mapped("shell");
    expect(events.filter((event) => event.type === "tool_start")).toEqual([
      { type: "tool_start", toolName: "Shell", preview: "echo made > made.txt && ls" },
    ]);
    expect(events.at(-1)).toEqual({ type: "result", text: "I made made.txt." });
  });

  it("a file change: an Edit step naming the file", () => {
    const { events } = mapped("file-change");
    const starts = events.filter((event) => event.type === "tool_start");
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({ toolName: "Edit" });
    expect(starts[0]!.type === "tool_start" && starts[0]!.preview.endsWith("/workspace/notes.md")).toBe(true);
  });

  it("the CLI's default model answers the same way", () => {
    expect(mapped("default-model").events.at(-1)).toEqual({ type: "result", text: "Hello from the default model." });
  });

  for (const [name, classification, retryable] of [
    ["auth-failure", "auth", false],
    ["quota", "quota", false],
    ["rate-limit", "quota", true],
    ["server-error", "overloaded", true],
    ["dropped-stream", "transport", true],
  ] as const) {
    it(`a failed turn (${name}) is one classified error, after the CLI's own error line as stderr`, () => {
      const { events } = mapped(name);
      expect(events.map((event) => event.type)).toEqual(["session_init", "adapter_stderr", "error"]);
      expect(events.at(-1)).toMatchObject({ type: "error", classification, retryable });
    });
  }

  it("a thread the CLI does not have: nothing on stdout, its reason on stderr", () => {
    expect(fixture("resume-missing")).toEqual([]);
    const stderr = readFileSync(new URL("./fixtures/codex/resume-missing.stderr.txt", import.meta.url), "utf8");
    expect(stderr).toMatch(/no rollout found/);
  });

  it("reports a step still running every ten seconds, and none once it is done", () => {
    let now = 0;
    const mapper = new CodexEventMapper({ now: () => now });
    const [started, completed] = fixture("shell").slice(2, 4).map(parseCodexLine);
    if (started?.kind !== "event" || completed?.kind !== "event") throw new Error("unexpected fixture");
    expect(mapper.map(started.event)).toHaveLength(1);
    now = PROGRESS_EVERY_MS - 1;
    expect(mapper.tick()).toEqual([]);
    now = PROGRESS_EVERY_MS + 500;
    expect(mapper.tick()).toEqual([{ type: "tool_progress", toolName: "Shell", elapsedSeconds: 10.5 }]);
    expect(mapper.tick()).toEqual([]);
    expect(mapper.map(completed.event)).toEqual([]);
    now = 10 * PROGRESS_EVERY_MS;
    expect(mapper.tick()).toEqual([]);
  });

  it("skips event types it does not know and passes on lines that are not JSON", () => {
    expect(parseCodexLine('{"type":"item.plan.delta","item_id":"x","delta":"y"}')).toEqual({
      kind: "unknown",
      type: "item.plan.delta",
    });
    expect(parseCodexLine("WARNING: something")).toEqual({ kind: "not_json", text: "WARNING: something" });
    const mapper = new CodexEventMapper();
    const parsed = parseCodexLine('{"type":"item.completed","item":{"id":"i","type":"brand_new_kind"}}');
    expect(parsed.kind === "event" ? mapper.map(parsed.event) : "not an event").toEqual([]);
  });
});

describe("classifyCodexError", () => {
  it("reads the CLI's words for statuses, quota, context and broken streams", () => {
    expect(classifyCodexError("unexpected status 401 Unauthorized: Incorrect API key provided")).toEqual({
      classification: "auth",
      retryable: false,
    });
    expect(classifyCodexError("unexpected status 403 Forbidden: nope").classification).toBe("auth");
    expect(classifyCodexError("exceeded retry limit, last status: 429 Too Many Requests")).toEqual({
      classification: "quota",
      retryable: true,
    });
    expect(classifyCodexError("exceeded retry limit, last status: 503 Service Unavailable").classification).toBe(
      "overloaded",
    );
    expect(
      classifyCodexError('{"error":{"message":"Unknown parameter: \'x\'.","type":"invalid_request_error"}}'),
    ).toEqual({ classification: "invalid_request", retryable: false });
    expect(classifyCodexError("Codex ran out of room in the model's context window.").classification).toBe(
      "invalid_request",
    );
    expect(classifyCodexError("The model `gpt-x` does not exist or you do not have access to it.").classification).toBe(
      "invalid_request",
    );
    expect(classifyCodexError("idle timeout waiting for SSE")).toEqual({ classification: "timeout", retryable: true });
    expect(classifyCodexError("something odd")).toEqual({ classification: "internal", retryable: true });
  });
});

describe("the Codex command line", () => {
  const base = {
    model: "gpt-5.5",
    baseUrl: "http://openai.internal/v1",
    developerInstructions: "Be brief.",
    toolServerUrl: "http://127.0.0.1:4000/mcp",
    maxRetries: 3,
    skills: { kind: "none" } as const,
  };
  const overrides = (args: string[]): Map<string, string> =>
    new Map(
      args
        .flatMap((arg, index) => (args[index - 1] === "-c" ? [arg] : []))
        .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
    );

  it("reads no config file, points the CLI at the proxy with its own key variable, and takes the prompt on stdin", () => {
    const args = codexArguments({ ...base, resume: undefined, sandbox: "host" });
    expect(args.slice(0, 2)).toEqual(["exec", "--json"]);
    expect(args).toEqual(expect.arrayContaining(["--strict-config", "--ignore-user-config", "--ignore-rules"]));
    expect(args.at(-1)).toBe("-");
    const config = overrides(args);
    expect(config.get("model_providers.bot.base_url")).toBe('"http://openai.internal/v1"');
    expect(config.get("model_providers.bot.env_key")).toBe('"BOT_MODEL_KEY"');
    expect(config.get("project_doc_max_bytes")).toBe("0");
    expect(config.get("project_root_markers")).toBe("[]");
    expect(config.get("web_search")).toBe('"disabled"');
    expect(config.get("developer_instructions")).toBe('"Be brief."');
    expect(config.get("mcp_servers.bot.bearer_token_env_var")).toBe('"BOT_TOOLS_TOKEN"');
    expect(config.get("mcp_servers.bot.default_tools_approval_mode")).toBe('"approve"');
  });

  it("keeps Codex's sandbox on a host and leaves it to the container inside one; never asks for approval", () => {
    const host = overrides(codexArguments({ ...base, resume: undefined, sandbox: "host" }));
    expect(host.get("sandbox_mode")).toBe('"workspace-write"');
    expect(host.get("sandbox_workspace_write.network_access")).toBe("false");
    expect(host.get("approval_policy")).toBe('"never"');
    const container = overrides(codexArguments({ ...base, resume: undefined, sandbox: "container" }));
    expect(container.get("sandbox_mode")).toBe('"danger-full-access"');
  });

  it("resumes a thread by id", () => {
    const args = codexArguments({ ...base, resume: "thread-1", developerInstructions: undefined, sandbox: "host" });
    expect(args.slice(0, 2)).toEqual(["exec", "resume"]);
    expect(args.slice(-2)).toEqual(["thread-1", "-"]);
    expect(overrides(args).has("developer_instructions")).toBe(false);
  });

  it("writes TOML strings that survive quotes, newlines and lone surrogates", () => {
    expect(toml('say "hi"\nnow')).toBe('"say \\"hi\\"\\nnow"');
    expect(toml("broken \uD800 half")).toBe('"broken \uFFFD half"');
    expect(toml(["a", "b"])).toBe('["a", "b"]');
  });
});

describe("instructions of a resumed thread", () => {
  it("sends only the paragraphs the thread has not had", () => {
    const first = "You are Testbot.\n\nThe time is 10:00.";
    const known = instructionParagraphs(first).map((paragraph) => paragraph.digest);
    expect(instructionsUpdate(first, known)).toBe("");
    const update = instructionsUpdate("You are Testbot.\n\nThe time is 10:05.", known);
    expect(update).toContain("The time is 10:05.");
    expect(update).not.toContain("You are Testbot.");
    expect(update.startsWith("<bot_instructions_update>")).toBe(true);
  });
});

describe("withoutSkillMentions", () => {
  it("keeps `$name` from naming a skill, and the text as people read it", () => {
    const text = withoutSkillMentions("Use $evil, or [$evil](skill:///x/SKILL.md); it costs $5. A lone $ stays.");
    expect(text).not.toMatch(/\$[A-Za-z0-9_:.\-/]/);
    expect(text.replaceAll("\u2060", "")).toBe(
      "Use $evil, or [$evil](skill:///x/SKILL.md); it costs $5. A lone $ stays.",
    );
  });
});

describe("unwrapShell", () => {
  it("shows the command the model wrote", () => {
    expect(unwrapShell("/bin/bash -lc 'ls -la'")).toBe("ls -la");
    expect(unwrapShell('/bin/zsh -c "echo hi"')).toBe("echo hi");
    expect(unwrapShell("python3 script.py")).toBe("python3 script.py");
  });
});
