import path from "node:path";
import { type HookCallback, type Options, type Query, query, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { toolPreview } from "../src/protocol/events.ts";
import type { AgentRun } from "./agent-run.ts";
import { archiveTranscript } from "./archive.ts";
import { childEnv } from "./child-env.ts";
import { classifyApiError, classifyResultSubtype, classifyThrown } from "./classify.ts";
import { BRIDGE_SERVER_NAME, BRIDGE_TOOL_PREFIX, createToolBridge } from "./mcp-bridge.ts";
import { buildPrompt } from "./prompt.ts";
import { truncate } from "./redact.ts";
import { messageOf, nonNegative } from "./run-output.ts";
import { type ClaudeSkills, installClaudeSkills } from "./skills.ts";

/** The built-in Claude Code tools a chat's agent gets; the bot's own tools come on top as `mcp__bot__*`. */
// No WebSearch: it is a server-side tool of the Messages API (outside the egress list and the meter), which the
// Worker's proxy does not forward; the bot's own web_search (through the bridge) is priced and counted instead.
const BUILTIN_TOOLS = ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "WebFetch"] as const;
/** After the run's last event, how long the CLI may take to finish writing its session before it is closed. */
const DRAIN_AFTER_END_MS = 5_000;

/**
 * One run of `claude-agent`: the payload's turn through the Claude Agent SDK, as `AgentEvent`s on `run.output`.
 * `runAgent` (run-agent.ts) prepares the run and sends the last event if this ends without one.
 *
 * SDK message → event:
 * - `system/init` → `session_init` (once per session id);
 * - `assistant` `tool_use` blocks → `tool_start` (the `mcp__bot__` prefix removed);
 * - `tool_progress` → `tool_progress`; CLI stderr → `adapter_stderr` (redacted, truncated, bounded in number);
 * - `result` success → `usage`, then `result`; an API failure (`is_error`) or an error subtype → a classified `error`;
 * - `rate_limit_event` with status `rejected` → `error` (quota), and the query is closed;
 * - `system/api_retry` → `adapter_stderr` only: the CLI goes on retrying by itself and a retry is not the end of the
 *   turn, while in our stream an `error` is terminal. If the retries run out, the `result` that follows carries the
 *   failure and becomes the `error`.
 * - an exception out of `query()` (the CLI failed to start or died) → `error` (internal / transport, retryable).
 *
 * A `sessionId` the CLI no longer has (the container restarted and lost its disk) is not an error: the run starts a
 * new session with the whole history as context, and the new `session_init` replaces the old id.
 */
export async function runClaude(run: AgentRun): Promise<void> {
  const { payload, output, signal, directories } = run;
  const cwd = directories.workspace;
  const env = childEnv({
    base: run.env,
    apiKey: run.model.apiKey,
    baseUrl: run.model.baseUrl,
    configDirectory: directories.config,
    homeDirectory: directories.home,
  });

  const preCompact: HookCallback = async (input) => {
    if (input.hook_event_name !== "PreCompact") return {};
    try {
      const file = await archiveTranscript({
        transcriptPath: input.transcript_path,
        cwd,
        sessionId: input.session_id,
        trigger: input.trigger,
      });
      if (file) output.stderrLine(`archived the conversation to ${path.relative(cwd, file)} before compaction`);
    } catch (error) {
      output.stderrLine(`could not archive the conversation before compaction: ${messageOf(error)}`);
    }
    return {};
  };

  // The chat's skills, from this run's payload: the only skills the CLI lists (see skills.ts).
  const skills: ClaudeSkills | undefined = await installClaudeSkills(directories.claudeSkills, payload.skills ?? []);
  const tools: string[] = [...BUILTIN_TOOLS, ...(skills ? ["Skill"] : [])];

  /** One query; `session_missing` when the CLI refused to resume because it has no such session. */
  const attempt = async (resume: string | undefined): Promise<"done" | "session_missing"> => {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const bridge =
      payload.tools.length > 0 && payload.toolCallback
        ? createToolBridge(payload.tools, payload.toolCallback, { signal: controller.signal })
        : undefined;
    const sdkOptions: Options = {
      cwd,
      model: payload.model,
      ...(resume ? { resume } : {}),
      abortController: controller,
      tools,
      allowedTools: [...tools, ...(bridge ? [`${BRIDGE_TOOL_PREFIX}*`] : [])],
      ...(skills
        ? { plugins: [{ type: "local", path: skills.pluginPath, skipMcpDiscovery: true }], skills: skills.names }
        : {}),
      mcpServers: bridge ? { [BRIDGE_SERVER_NAME]: bridge } : {},
      strictMcpConfig: true,
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      // The Worker owns the bot's instructions and may change them between turns (persona, tools, memories), so
      // they are not recorded with the session (`snapshot: false`): every request carries the current ones.
      systemPrompt: {
        type: "preset",
        preset: "claude_code",
        ...(payload.systemPrompt.trim() !== "" ? { append: payload.systemPrompt } : {}),
        snapshot: false,
      },
      // No settings files at all: not the machine's, not the chat's config directory's, and not the workspace's
      // `.claude/settings.json`, `CLAUDE.md` or `.claude/skills`, which a steered agent could have written to plant
      // hooks or instructions for every later turn. The Worker's system prompt and the chat's skills from the
      // payload are the only standing instructions.
      settingSources: [],
      // The answer as it streams (`stream_event` messages), forwarded as text_delta events.
      includePartialMessages: true,
      hooks: { PreCompact: [{ hooks: [preCompact] }] },
      stderr: (data) => {
        for (const line of data.split(/\r?\n/)) if (line.trim() !== "") output.stderrLine(line.trim());
      },
      env,
    };

    let announced: string | undefined;
    let apiErrorKind: string | undefined;
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    let sdkQuery: Query | undefined;
    const settle = (): void => {
      // The run's answer is out; give the CLI a moment to finish writing the session, then close it.
      drainTimer ??= setTimeout(() => sdkQuery?.close(), DRAIN_AFTER_END_MS);
    };

    const handle = (message: SDKMessage): "session_missing" | undefined => {
      switch (message.type) {
        case "system":
          if (message.subtype === "init" && message.session_id !== announced) {
            announced = message.session_id;
            output.emit({ type: "session_init", sessionId: message.session_id });
          } else if (message.subtype === "api_retry") {
            output.stderrLine(
              `API retry ${message.attempt}/${message.max_retries}: ${message.error_status ?? "no response"} ${message.error}` +
                ` (next in ${Math.round(message.retry_delay_ms)} ms)`,
            );
          } else if (message.subtype === "compact_boundary") {
            output.stderrLine("the conversation was compacted");
          }
          return undefined;
        case "assistant":
          if (message.error) apiErrorKind = message.error;
          for (const block of message.message.content ?? []) {
            if (block.type !== "tool_use") continue;
            const name = block.name.startsWith(BRIDGE_TOOL_PREFIX)
              ? block.name.slice(BRIDGE_TOOL_PREFIX.length)
              : block.name;
            output.emit({
              type: "tool_start",
              toolName: truncate(name, 300),
              preview: toolPreview(JSON.stringify(block.input ?? {})),
            });
          }
          return undefined;
        case "stream_event": {
          // Only the main conversation's text: a subagent's (parent_tool_use_id set) is not the answer.
          const event = message.event;
          if (message.parent_tool_use_id !== null || event.type !== "content_block_delta") return undefined;
          if (event.delta.type !== "text_delta" || event.delta.text === "") return undefined;
          output.textDelta(event.delta.text);
          return undefined;
        }
        case "tool_progress": {
          const name = message.tool_name.startsWith(BRIDGE_TOOL_PREFIX)
            ? message.tool_name.slice(BRIDGE_TOOL_PREFIX.length)
            : message.tool_name;
          const elapsed = message.elapsed_time_seconds;
          output.emit({
            type: "tool_progress",
            toolName: truncate(name, 300),
            ...(Number.isFinite(elapsed) && elapsed >= 0 ? { elapsedSeconds: elapsed } : {}),
          });
          return undefined;
        }
        case "rate_limit_event": {
          const info = message.rate_limit_info;
          if (info.status !== "rejected") return undefined;
          const resets = info.resetsAt ? `; it resets at ${new Date(info.resetsAt * 1000).toISOString()}` : "";
          output.fail(
            { classification: "quota", retryable: false },
            `the usage limit was reached (${info.rateLimitType ?? "unknown"})${resets}`,
          );
          sdkQuery?.close();
          return undefined;
        }
        case "result":
          if (message.subtype === "success") {
            if (message.is_error) {
              const extra = message as { api_error?: unknown; api_error_type?: unknown };
              const classified = classifyApiError({
                kind: apiErrorKind,
                status: message.api_error_status,
                errorType: typeof extra.api_error_type === "string" ? extra.api_error_type : undefined,
                apiError: typeof extra.api_error === "string" ? extra.api_error : undefined,
              });
              output.fail(classified, message.result || "the API call failed");
            } else {
              const usage = message.usage;
              const cacheRead = usage.cache_read_input_tokens ?? 0;
              const cacheWrite = usage.cache_creation_input_tokens ?? 0;
              output.emit({
                type: "usage",
                inputTokens: nonNegative(usage.input_tokens + cacheRead + cacheWrite),
                outputTokens: nonNegative(usage.output_tokens),
                cacheReadTokens: nonNegative(cacheRead),
                cacheWriteTokens: nonNegative(cacheWrite),
              });
              output.emit({ type: "result", text: message.result });
            }
          } else {
            const errors = message.errors.join("; ");
            if (resume && announced === undefined && /no conversation found|valid session id/i.test(errors))
              return "session_missing";
            output.fail(classifyResultSubtype(message.subtype), `${message.subtype}${errors ? `: ${errors}` : ""}`);
          }
          return undefined;
        default:
          return undefined;
      }
    };

    try {
      sdkQuery = query({ prompt: buildPrompt(payload.history, resume !== undefined), options: sdkOptions });
      for await (const message of sdkQuery) {
        if (output.terminal) continue; // draining: the CLI is finishing its session file
        if (handle(message) === "session_missing") return "session_missing";
        if (output.terminal) settle();
      }
    } catch (error) {
      // After an `is_error` result the SDK also throws ("Claude Code returned an error result"): already reported.
      if (!output.terminal) {
        if (controller.signal.aborted) output.cancelled(signal);
        else output.fail(classifyThrown(error), `the agent process failed: ${messageOf(error)}`);
      }
    } finally {
      if (drainTimer !== undefined) clearTimeout(drainTimer);
      signal.removeEventListener("abort", onAbort);
    }
    return "done";
  };

  if (payload.tools.length > 0 && !payload.toolCallback) {
    output.stderrLine("the payload has tools but no toolCallback; the bot's own tools are not offered");
  }
  if ((await attempt(payload.sessionId)) === "session_missing") {
    output.stderrLine(
      `session ${payload.sessionId} is not on this runner any more; starting a new one with the chat's history`,
    );
    await attempt(undefined);
  }
}
