import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import type { AgentRun } from "./agent-run.ts";
import { codexChildEnv } from "./child-env.ts";
import { classifyCodexError } from "./classify.ts";
import { codexArguments, fitsInArgument } from "./codex-args.ts";
import { CodexEventMapper, parseCodexLine } from "./codex-events.ts";
import { type CodexToolServer, startCodexToolServer } from "./codex-mcp.ts";
import { CodexThreads, instructionParagraphs, instructionsUpdate } from "./codex-threads.ts";
import { buildPrompt, withoutSkillMentions } from "./prompt.ts";
import { messageOf } from "./run-output.ts";
import { type CodexSkills, installCodexSkills } from "./skills.ts";

/** After the turn's last event, how long the CLI may take to finish writing its session and exit. */
const EXIT_AFTER_END_MS = 5_000;
/** After SIGTERM, how long the CLI gets before SIGKILL. */
const KILL_GRACE_MS = 3_000;
/** How often running tool steps are checked for a `tool_progress` report. */
const TICK_MS = 2_000;
/** The CLI's own retries of a failed request and of a dropped stream, unless CODEX_MAX_RETRIES says otherwise. */
const DEFAULT_MAX_RETRIES = 3;
/** stderr lines kept to explain a CLI that ends without a result. */
const KEPT_STDERR_LINES = 20;
const BACKTRACE_NOISE = /^(Stack backtrace:|\d+: <unknown>)$/;

/** The CLI's launcher in the `@openai/codex` package (it finds the platform's native binary). */
export function codexLauncher(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("@openai/codex/bin/codex.js");
  } catch {
    return undefined;
  }
}

/**
 * One run of `codex-agent`: the turn through `codex exec --json` (a new thread, or `exec resume <thread>`), its JSON
 * lines mapped to `AgentEvent`s on `run.output` (codex-events.ts). The CLI reaches the model through the run's model
 * proxy with a per-run key, the bot's tools through a loopback MCP server (codex-mcp.ts), and keeps its state in the
 * chat's own CODEX_HOME outside the workspace. A thread the CLI no longer has (the container lost its disk) is not an
 * error: a new one starts with the chat's history as context.
 */
export async function runCodex(run: AgentRun): Promise<void> {
  const { payload, output } = run;
  const launcher = codexLauncher();
  if (launcher === undefined) {
    output.fail({ classification: "internal", retryable: false }, "the Codex CLI (@openai/codex) is not installed");
    return;
  }
  if (payload.tools.length > 0 && !payload.toolCallback) {
    output.stderrLine("the payload has tools but no toolCallback; the bot's own tools are not offered");
  }
  let tools: CodexToolServer | undefined;
  if (payload.tools.length > 0 && payload.toolCallback) {
    tools = await startCodexToolServer(payload.tools, payload.toolCallback, { signal: run.signal });
    output.addSecret(tools.token);
  }
  try {
    // The chat's skills, from this run's payload: the only skills the CLI lists (see skills.ts).
    const skills = await installCodexSkills(
      { codexHome: run.directories.codex, workspace: run.directories.workspace, home: run.directories.home },
      payload.skills ?? [],
    );
    if (skills.kind === "none" && skills.reason) output.stderrLine(`no skills are listed this run: ${skills.reason}`);
    const first = await attempt(run, { launcher, tools, skills, resume: payload.sessionId });
    if (first === "session_missing") {
      output.stderrLine(
        `thread ${payload.sessionId} is not on this runner any more; starting a new one with the chat's history`,
      );
      await attempt(run, { launcher, tools, skills, resume: undefined });
    }
  } finally {
    await tools?.close();
  }
}

/** One `codex exec`; `session_missing` when it refused to resume a thread it does not have. */
async function attempt(
  run: AgentRun,
  options: { launcher: string; tools: CodexToolServer | undefined; skills: CodexSkills; resume: string | undefined },
): Promise<"done" | "session_missing"> {
  const { payload, output, signal, directories } = run;
  const { resume } = options;
  const threads = new CodexThreads(directories.codexThreads);
  const note = resume === undefined ? undefined : await threads.get(resume);

  // A new thread gets the bot's system prompt as its developer instructions; a resumed one keeps those it began with,
  // so what changed since comes before the user's message (all of it when the runner has no note on the thread).
  const instructions = payload.systemPrompt;
  const asDeveloperInstructions = resume === undefined && fitsInArgument(instructions);
  const preamble = asDeveloperInstructions ? "" : instructionsUpdate(instructions, note?.instructions ?? []);
  const message = withoutSkillMentions(buildPrompt(payload.history, resume !== undefined));
  const prompt = preamble === "" ? message : `${preamble}\n\n${message}`;

  const maxRetries = retriesOf(run.env.CODEX_MAX_RETRIES);
  const args = codexArguments({
    model: payload.model,
    baseUrl: run.model.baseUrl ?? "https://api.openai.com/v1",
    resume,
    developerInstructions: asDeveloperInstructions ? instructions : undefined,
    sandbox: run.sandbox,
    toolServerUrl: options.tools?.url,
    maxRetries,
    skills: options.skills,
  });
  const env = codexChildEnv({
    base: run.env,
    apiKey: run.model.apiKey,
    toolsToken: options.tools?.token,
    codexHome: directories.codex,
    homeDirectory: directories.home,
  });

  const mapper = new CodexEventMapper({ previous: note?.totals });
  const stderrTail: string[] = [];
  let child: ChildProcess;
  try {
    // Its own process group, so that a cancelled run ends the CLI and what it started, together.
    child = spawn(process.execPath, [options.launcher, ...args], {
      cwd: directories.workspace,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
  } catch (error) {
    output.fail({ classification: "internal", retryable: true }, `the Codex CLI could not start: ${messageOf(error)}`);
    return "done";
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once("exit", (code, exitSignal) => resolve({ code, signal: exitSignal }));
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
  });
  const stop = (): void => {
    terminate(child);
  };
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  child.stdin?.on("error", () => undefined);
  child.stdin?.end(prompt);

  const stderrDone = readLines(child.stderr, (line) => {
    // A Rust backtrace of anonymous frames says nothing to anyone reading the log.
    if (BACKTRACE_NOISE.test(line)) return;
    stderrTail.push(line);
    if (stderrTail.length > KEPT_STDERR_LINES) stderrTail.shift();
    output.stderrLine(line);
  });
  const tick = setInterval(() => {
    for (const event of mapper.tick()) output.emit(event);
  }, TICK_MS);
  let exitTimer: ReturnType<typeof setTimeout> | undefined;
  try {
    await readLines(child.stdout, (line) => {
      if (output.terminal) return; // the turn is over; the CLI is finishing its session file
      const parsed = parseCodexLine(line);
      if (parsed.kind === "not_json") output.stderrLine(parsed.text);
      if (parsed.kind !== "event") return;
      for (const event of mapper.map(parsed.event)) {
        switch (event.type) {
          case "text_delta":
            output.textDelta(event.text);
            break;
          case "adapter_stderr":
            output.stderrLine(event.message);
            break;
          case "result":
            output.emit({ type: "result", text: output.redact(event.text) });
            break;
          case "error":
            output.fail({ classification: event.classification, retryable: event.retryable }, event.message);
            break;
          default:
            output.emit(event);
        }
      }
      if (output.terminal) exitTimer ??= setTimeout(stop, EXIT_AFTER_END_MS);
    });
    const exit = await exited;
    await stderrDone;
    if (mapper.thread !== undefined && mapper.totals !== undefined) {
      await threads
        .record(mapper.thread, {
          totals: mapper.totals,
          current: instructionParagraphs(instructions).map((paragraph) => paragraph.digest),
          known: note?.instructions ?? [],
        })
        .catch((error: unknown) => output.stderrLine(`could not note the thread's usage: ${messageOf(error)}`));
    }
    if (output.terminal) return "done";
    const said = stderrTail.join("\n");
    if (resume !== undefined && mapper.thread === undefined && /no rollout found|thread\/resume failed/i.test(said)) {
      return "session_missing";
    }
    if (signal.aborted) return "done";
    const how = exit.error
      ? `could not run (${exit.error.message})`
      : exit.signal
        ? `was killed (${exit.signal})`
        : `exited with code ${exit.code}`;
    const last = stderrTail.at(-1) ?? "";
    const classified =
      said === "" ? { classification: "internal" as const, retryable: true } : classifyCodexError(said);
    output.fail(classified, `the Codex CLI ${how} without a result${last ? `: ${last}` : ""}`);
    return "done";
  } finally {
    clearInterval(tick);
    if (exitTimer !== undefined) clearTimeout(exitTimer);
    signal.removeEventListener("abort", stop);
    terminate(child);
  }
}

/** Ends the CLI's process group: SIGTERM, then SIGKILL if it is still there after a grace period. */
function terminate(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const group = -child.pid;
  try {
    process.kill(group, "SIGTERM");
  } catch {
    return; // already gone
  }
  setTimeout(() => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(group, "SIGKILL");
    } catch {
      // gone
    }
  }, KILL_GRACE_MS).unref();
}

/** Calls `onLine` for each non-empty line of a stream; resolves when the stream ends. */
async function readLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): Promise<void> {
  if (!stream) return;
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    const trimmed = line.trim();
    if (trimmed !== "") onLine(trimmed);
  }
}

function retriesOf(value: string | undefined): number {
  const parsed = Number(value);
  return value !== undefined && value !== "" && Number.isInteger(parsed) && parsed >= 0 && parsed <= 10
    ? parsed
    : DEFAULT_MAX_RETRIES;
}
