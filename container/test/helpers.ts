import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type AgentEvent, agentEventSchema } from "../../src/protocol/events.ts";
import { FakeAnthropic } from "./fake-anthropic.ts";
import { FakeOpenAI } from "./fake-openai.ts";

const SERVER = fileURLToPath(new URL("../server.ts", import.meta.url));
export const TEST_API_KEY = "sk-ant-test-dummy-key-0123456789";
export const TEST_OPENAI_KEY = "sk-proj-test-dummy-key-0123456789";
export const RUNNER_TEST_TOKEN = "runner-test-token-0123456789";
/** What the Worker sends with every `POST /run`. */
export const RUN_HEADERS = { "content-type": "application/json", authorization: `Bearer ${RUNNER_TEST_TOKEN}` };

/** A fake Worker tool endpoint (`POST /agent/tools/<chatKey>`): checks the bearer token, records calls. */
export class FakeToolEndpoint {
  readonly calls: Array<{ path: string; authorization: string | undefined; body: unknown }> = [];
  token = "test-callback-token-0123456789";
  /** The Worker's answer to a call; `hang` never answers. */
  answer: (
    name: string,
    argumentsText: string,
  ) => { status: number; body: unknown } | "hang" | Promise<{ status: number; body: unknown }> = () => ({
    status: 200,
    body: { content: "ok", isError: false },
  });
  private server: http.Server | undefined;
  url = "";

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => {
      void (async () => {
        let raw = "";
        for await (const chunk of request) raw += String(chunk);
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
        }
        this.calls.push({ path: request.url ?? "/", authorization: request.headers.authorization, body });
        const send = (status: number, payload: unknown): void => {
          response.writeHead(status, { "content-type": "application/json" });
          response.end(JSON.stringify(payload));
        };
        if (request.headers.authorization !== `Bearer ${this.token}`) return send(401, { error: "unauthorized" });
        if (request.headers["content-type"] !== "application/json")
          return send(415, { error: "unsupported_media_type" });
        const call = body as { name?: unknown; arguments?: unknown };
        if (typeof call.name !== "string" || typeof call.arguments !== "string")
          return send(400, { error: "invalid_request" });
        const answer = await this.answer(call.name, call.arguments);
        if (answer !== "hang") send(answer.status, answer.body);
      })();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  reset(): void {
    this.calls.length = 0;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }
}

/** The runner as a child process (`node container/server.ts`), with a temporary workspace and Claude config. */
export class RunnerProcess {
  url = "";
  output = "";
  workspaceRoot = "";
  private child: ChildProcess | undefined;
  private exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
  private temporary = "";

  async start(apiUrl: string, extraEnv: Record<string, string> = {}): Promise<this> {
    this.temporary = await mkdtemp(path.join(os.tmpdir(), "agent-runner-test-"));
    this.workspaceRoot = path.join(this.temporary, "workspace");
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: path.join(this.temporary, "home"),
      TMPDIR: os.tmpdir(),
      LANG: "C.UTF-8",
      PORT: "0",
      HOST: "127.0.0.1",
      WORKSPACE_ROOT: this.workspaceRoot,
      CLAUDE_CONFIG_DIR: path.join(this.temporary, "claude-config"),
      ANTHROPIC_BASE_URL: apiUrl,
      ANTHROPIC_API_KEY: TEST_API_KEY,
      // The CLI refuses bypassPermissions as root unless it is told it runs in a sandbox.
      IS_SANDBOX: "1",
      // Failures fail now instead of after minutes of backoff.
      CLAUDE_CODE_MAX_RETRIES: "0",
      RUNNER_TOKEN: RUNNER_TEST_TOKEN,
      ...extraEnv,
    };
    const child = spawn(process.execPath, [SERVER], { env, stdio: ["ignore", "pipe", "pipe"] });
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    child.stderr!.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    this.url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the runner did not start:\n${this.output}`)), 20_000);
      child.stdout!.on("data", (chunk: Buffer) => {
        this.output += chunk.toString();
        const match = /listening on http:\/\/[^\s:]+:(\d+)/.exec(this.output);
        if (match) {
          clearTimeout(timer);
          resolve(`http://127.0.0.1:${match[1]}`);
        }
      });
      child.once("exit", () => {
        clearTimeout(timer);
        reject(new Error(`the runner exited:\n${this.output}`));
      });
    });
    return this;
  }

  get pid(): number {
    return this.child!.pid!;
  }

  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /** Resolves with the exit, or undefined if it has not come within `timeoutMs`. */
  async waitForExit(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    try {
      return await Promise.race([this.exited!, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The processes under this runner (its CLIs and what they started) whose command line contains `word`. */
  async descendants(word: string): Promise<number[]> {
    const parents = new Map<number, number>();
    for (const entry of await readdir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = await readFile(`/proc/${entry}/stat`, "utf8");
        parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        // the process ended meanwhile
      }
    }
    const under = (pid: number): boolean => {
      for (let parent = parents.get(pid); parent !== undefined && parent > 1; parent = parents.get(parent)) {
        if (parent === this.pid) return true;
      }
      return false;
    };
    const found: number[] = [];
    for (const pid of parents.keys()) {
      if (!under(pid)) continue;
      const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      if (commandLine.includes(word)) found.push(pid);
    }
    return found;
  }

  /** The Claude Code CLI processes this runner has started and that still run. */
  async cliPids(): Promise<number[]> {
    const pids: number[] = [];
    for (const entry of await readdir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = await readFile(`/proc/${entry}/stat`, "utf8");
        const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (parent !== this.pid) continue;
        const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8");
        if (commandLine.includes("claude")) pids.push(Number(entry));
      } catch {
        // the process ended meanwhile
      }
    }
    return pids;
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGTERM");
      if (!(await this.waitForExit(10_000))) {
        this.child.kill("SIGKILL");
        await this.waitForExit(5_000);
      }
    }
    // The agent's CLI (the runner's child) may still be writing its state for a moment after the runner exits.
    if (this.temporary) await rm(this.temporary, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

export interface RunResponse {
  status: number;
  contentType: string | null;
  /** Parsed NDJSON lines (for 200), or the JSON body (otherwise) as the only element of `body`. */
  events: AgentEvent[];
  lines: string[];
  body: unknown;
}

/** POSTs a payload to the runner's `/run` and reads the whole answer. */
export async function postRun(
  runnerUrl: string,
  payload: unknown,
  init: { signal?: AbortSignal; rawBody?: string } = {},
): Promise<RunResponse> {
  const response = await fetch(`${runnerUrl}/run`, {
    method: "POST",
    headers: RUN_HEADERS,
    body: init.rawBody ?? JSON.stringify(payload),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const text = await response.text();
  if (response.status !== 200) {
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: response.status, contentType: response.headers.get("content-type"), events: [], lines: [], body };
  }
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const events = lines.map((line) => agentEventSchema.parse(JSON.parse(line)));
  return { status: 200, contentType: response.headers.get("content-type"), events, lines, body: undefined };
}

/**
 * POSTs a payload and hands each event to `onEvent` as its line arrives (so a test can act mid-stream); resolves
 * with all of them when the stream ends.
 */
export async function streamRun(
  runnerUrl: string,
  payload: unknown,
  onEvent: (event: AgentEvent) => void,
): Promise<AgentEvent[]> {
  const response = await fetch(`${runnerUrl}/run`, {
    method: "POST",
    headers: RUN_HEADERS,
    body: JSON.stringify(payload),
  });
  if (response.status !== 200 || !response.body) throw new Error(`the runner answered ${response.status}`);
  const events: AgentEvent[] = [];
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line === "") continue;
      const event = agentEventSchema.parse(JSON.parse(line));
      events.push(event);
      onEvent(event);
    }
  }
  if (buffer.trim() !== "") throw new Error(`the stream ended inside a line: ${buffer}`);
  return events;
}

/** A payload for `POST /run`. */
export function payloadFor(chatKey: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    chatKey,
    model: "claude-test-model",
    systemPrompt: "You are Testbot, a helpful Telegram bot. MARKER-SYSTEM-PROMPT",
    history: [{ role: "user", content: "Hello!" }],
    tools: [],
    ...overrides,
  };
}

export function lastEvent(events: readonly AgentEvent[]): AgentEvent | undefined {
  return events.at(-1);
}

/**
 * A test file's fixture: a fake Messages API, a fake Worker tool endpoint, and one runner (`node container/server.ts`)
 * started against them before the file's tests; the fakes are reset after each test.
 */
export function runnerAgainstFakes(): { api: FakeAnthropic; worker: FakeToolEndpoint; runner: RunnerProcess } {
  const api = new FakeAnthropic();
  const worker = new FakeToolEndpoint();
  const runner = new RunnerProcess();
  beforeAll(async () => {
    await api.start();
    await worker.start();
    await runner.start(api.url);
  });
  afterAll(async () => {
    await runner.stop();
    await api.close();
    await worker.close();
  });
  afterEach(() => {
    api.reset();
    worker.reset();
  });
  return { api, worker, runner };
}

/**
 * The same fixture for `codex-agent`: a fake Responses API that wants the real OpenAI key, a fake Worker tool endpoint,
 * and one runner started by hand with that key (its loopback proxy adds it; the Codex CLI gets a per-run key).
 */
export function codexRunnerAgainstFakes(): { api: FakeOpenAI; worker: FakeToolEndpoint; runner: RunnerProcess } {
  const api = new FakeOpenAI({ apiKey: TEST_OPENAI_KEY });
  const worker = new FakeToolEndpoint();
  const runner = new RunnerProcess();
  beforeAll(async () => {
    await api.start();
    await worker.start();
    await runner.start("http://127.0.0.1:9/unused-anthropic", {
      OPENAI_API_KEY: TEST_OPENAI_KEY,
      OPENAI_BASE_URL: `${api.url}/v1`,
      // Failures fail now instead of after the CLI's backoff.
      CODEX_MAX_RETRIES: "0",
    });
  });
  afterAll(async () => {
    await runner.stop();
    await api.close();
    await worker.close();
  });
  afterEach(() => {
    api.reset();
    api.apiKey = TEST_OPENAI_KEY;
    worker.reset();
  });
  return { api, worker, runner };
}

/** A payload for a `codex-agent` run. */
export function codexPayloadFor(chatKey: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return payloadFor(chatKey, { agent: "codex-agent", model: "gpt-5.5", ...overrides });
}
