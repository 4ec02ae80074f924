/**
 * Records what the real Codex CLI prints with `exec --json` in the scenarios the runner meets, against the fake
 * Responses API, into `fixtures/codex/<scenario>.jsonl` (stdout as printed) and `.stderr.txt`. The mapping's unit
 * tests (codex-events.test.ts) read these files, so they test the CLI's own output, not a guess of it.
 *
 *   node container/test/record-codex-fixtures.ts
 *
 * The CLI runs exactly as the runner starts it (codex-args.ts, child-env.ts), with a throwaway CODEX_HOME and
 * workspace. Run it again after updating `@openai/codex`, then the tests.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { codexChildEnv } from "../child-env.ts";
import { codexArguments } from "../codex-args.ts";
import { startCodexToolServer } from "../codex-mcp.ts";
import { codexLauncher } from "../run-codex.ts";
import { FakeOpenAI, type Reply, type ResponsesBody } from "./fake-openai.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/codex/", import.meta.url));
const KEY = "run-key-for-the-fake-0123456789";

interface Scenario {
  name: string;
  model?: string;
  prompt: string;
  respond: (body: ResponsesBody) => Reply | undefined;
  /** Resume the thread of this earlier scenario, or (`thread:<id>`) a thread that does not exist. */
  resume?: string;
  apiKey?: string;
  tools?: boolean;
}

const has = (body: ResponsesBody, text: string): boolean => JSON.stringify(body.input ?? []).includes(text);

const scenarios: Scenario[] = [
  {
    name: "answer",
    prompt: "Say hello.",
    respond: () => ({ kind: "response", output: [{ type: "message", text: "Hello! I am the fake model." }] }),
  },
  {
    name: "resume",
    resume: "answer",
    prompt: "And again?",
    respond: () => ({ kind: "response", output: [{ type: "message", text: "Hello again." }] }),
  },
  {
    name: "bot-tool",
    tools: true,
    prompt: "Remember that the sky is blue.",
    respond: (body) =>
      !has(body, "tool_search_output")
        ? { kind: "response", output: [{ type: "tool_search_call", arguments: { query: "remember" } }] }
        : !has(body, "function_call_output")
          ? {
              kind: "response",
              output: [
                { type: "message", text: "I'll remember that." },
                { type: "function_call", namespace: "mcp__bot", name: "remember", arguments: { fact: "sky is blue" } },
              ],
            }
          : { kind: "response", output: [{ type: "message", text: "Done: I will remember that the sky is blue." }] },
  },
  {
    name: "shell",
    prompt: "Make a file.",
    respond: (body) =>
      !has(body, "function_call_output")
        ? {
            kind: "response",
            output: [{ type: "function_call", name: "exec_command", arguments: { cmd: "echo made > made.txt && ls" } }],
          }
        : { kind: "response", output: [{ type: "message", text: "I made made.txt." }] },
  },
  {
    name: "file-change",
    prompt: "Write notes.",
    respond: (body) =>
      !has(body, "custom_tool_call_output")
        ? {
            kind: "response",
            output: [
              {
                type: "custom_tool_call",
                name: "apply_patch",
                input: "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+The sky is blue.\n*** End Patch\n",
              },
            ],
          }
        : { kind: "response", output: [{ type: "message", text: "I wrote notes.md." }] },
  },
  {
    name: "default-model",
    model: "gpt-6.1-sol",
    prompt: "Say hello.",
    respond: () => ({ kind: "response", output: [{ type: "message", text: "Hello from the default model." }] }),
  },
  {
    name: "auth-failure",
    apiKey: "not-the-key-0123456789",
    prompt: "Say hello.",
    respond: () => undefined,
  },
  {
    name: "quota",
    prompt: "Say hello.",
    respond: () => ({
      kind: "error",
      status: 429,
      type: "insufficient_quota",
      code: "insufficient_quota",
      message: "You exceeded your current quota, please check your plan and billing details.",
    }),
  },
  {
    name: "rate-limit",
    prompt: "Say hello.",
    respond: () => ({
      kind: "error",
      status: 429,
      type: "requests",
      code: "rate_limit_exceeded",
      message: "Rate limit reached for requests. Please try again in 20ms.",
    }),
  },
  {
    name: "server-error",
    prompt: "Say hello.",
    respond: () => ({
      kind: "error",
      status: 500,
      type: "server_error",
      code: null,
      message: "The server had an error while processing your request. Sorry about that!",
    }),
  },
  { name: "dropped-stream", prompt: "Say hello.", respond: () => ({ kind: "drop" }) },
  {
    name: "resume-missing",
    resume: "thread:01a20a62-0000-7000-8000-000000000000",
    prompt: "Hello?",
    respond: () => undefined,
  },
];

const launcher = codexLauncher();
if (!launcher) throw new Error("@openai/codex is not installed");
const api = await new FakeOpenAI({ apiKey: KEY }).start();
const worker = http.createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ content: "Remembered.", isError: false }));
  });
});
await new Promise<void>((resolve) => worker.listen(0, "127.0.0.1", resolve));
const workerUrl = `http://127.0.0.1:${(worker.address() as AddressInfo).port}/agent/tools/chat%3A1`;
const root = await mkdtemp(path.join(os.homedir(), ".codex-fixtures-"));
await mkdir(FIXTURES, { recursive: true });
const threads = new Map<string, string>();
const version = await run([launcher, "--version"], { cwd: root, env: { PATH: process.env.PATH ?? "" } });

try {
  for (const scenario of scenarios) {
    api.respond = scenario.respond;
    const workspace = path.join(root, "workspace");
    await mkdir(workspace, { recursive: true });
    const tools = scenario.tools
      ? await startCodexToolServer(
          [
            {
              name: "remember",
              description: "Remember a fact for later.",
              inputSchema: { type: "object", properties: { fact: { type: "string" } }, required: ["fact"] },
            },
          ],
          { url: workerUrl, token: "worker-token-0123456789" },
        )
      : undefined;
    const resume = scenario.resume?.startsWith("thread:")
      ? scenario.resume.slice("thread:".length)
      : scenario.resume === undefined
        ? undefined
        : threads.get(scenario.resume);
    const args = codexArguments({
      model: scenario.model ?? "gpt-5.5",
      baseUrl: `${api.url}/v1`,
      resume,
      developerInstructions: resume === undefined ? "You are Testbot, a Telegram bot." : undefined,
      sandbox: "container",
      toolServerUrl: tools?.url,
      maxRetries: 0,
      skills: { kind: "none" },
    });
    const env = codexChildEnv({
      base: process.env,
      apiKey: scenario.apiKey ?? KEY,
      toolsToken: tools?.token,
      codexHome: path.join(root, "codex-home"),
      homeDirectory: path.join(root, "home"),
    });
    await mkdir(env.CODEX_HOME!, { recursive: true });
    await mkdir(env.HOME!, { recursive: true });
    const result = await run([launcher, ...args], { cwd: workspace, env, input: scenario.prompt, keepStderr: true });
    await tools?.close();
    const thread = /"thread_id":"([^"]+)"/.exec(result.stdout)?.[1];
    if (thread) threads.set(scenario.name, thread);
    // Thread and item ids differ per recording; the tests read them as they are. Paths are made stable.
    await writeFile(
      path.join(FIXTURES, `${scenario.name}.jsonl`),
      result.stdout.replaceAll(root, "/root-of-the-recording"),
    );
    const stderr = result.stderr.replaceAll(root, "/root-of-the-recording");
    if (stderr.trim() !== "") await writeFile(path.join(FIXTURES, `${scenario.name}.stderr.txt`), stderr);
    console.log(`${scenario.name}: exit ${result.code}, ${result.stdout.split("\n").filter(Boolean).length} lines`);
  }
  await writeFile(path.join(FIXTURES, "VERSION"), `${version.stdout.trim()}\n`);
} finally {
  await api.close();
  worker.close();
  await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

async function run(
  command: string[],
  options: { cwd: string; env: Record<string, string>; input?: string; keepStderr?: boolean },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, command, { cwd: options.cwd, env: options.env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? "");
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exit) => resolve(exit)));
  return { code, stdout, stderr: options.keepStderr ? stderr : "" };
}
