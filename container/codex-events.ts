import * as z from "zod";
import { type AgentEvent, toolPreview } from "../src/protocol/events.ts";
import { type Classified, classifyCodexError } from "./classify.ts";
import { truncate } from "./redact.ts";

/**
 * The JSON lines `codex exec --json` prints (codex-rs/exec's `ThreadEvent`), read leniently: the fields this mapping
 * uses are checked, anything else is kept or ignored, and an event type it does not know is skipped, so a newer CLI
 * that adds events does not break a run.
 */
const usageSchema = z.looseObject({
  input_tokens: z.number(),
  cached_input_tokens: z.number().optional(),
  cache_write_input_tokens: z.number().optional(),
  output_tokens: z.number(),
});
export type CodexUsage = z.infer<typeof usageSchema>;

const itemSchema = z.discriminatedUnion("type", [
  z.looseObject({ id: z.string(), type: z.literal("agent_message"), text: z.string() }),
  z.looseObject({ id: z.string(), type: z.literal("reasoning") }),
  z.looseObject({
    id: z.string(),
    type: z.literal("command_execution"),
    command: z.string(),
    exit_code: z.number().nullable().optional(),
    status: z.string(),
  }),
  z.looseObject({
    id: z.string(),
    type: z.literal("file_change"),
    changes: z.array(z.looseObject({ path: z.string(), kind: z.string() })),
    status: z.string(),
  }),
  z.looseObject({
    id: z.string(),
    type: z.literal("mcp_tool_call"),
    server: z.string(),
    tool: z.string(),
    arguments: z.unknown().optional(),
    status: z.string(),
  }),
  z.looseObject({ id: z.string(), type: z.literal("web_search"), query: z.string() }),
  z.looseObject({ id: z.string(), type: z.literal("collab_tool_call"), tool: z.string() }),
  z.looseObject({ id: z.string(), type: z.literal("todo_list") }),
  z.looseObject({ id: z.string(), type: z.literal("plan") }),
  z.looseObject({ id: z.string(), type: z.literal("error"), message: z.string() }),
]);
type CodexItem = z.infer<typeof itemSchema>;

const eventSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("thread.started"), thread_id: z.string().min(1).max(500) }),
  z.looseObject({ type: z.literal("turn.started") }),
  z.looseObject({ type: z.literal("turn.completed"), usage: usageSchema }),
  z.looseObject({ type: z.literal("turn.failed"), error: z.looseObject({ message: z.string() }) }),
  z.looseObject({ type: z.literal("item.started"), item: z.looseObject({ type: z.string() }) }),
  z.looseObject({ type: z.literal("item.updated"), item: z.looseObject({ type: z.string() }) }),
  z.looseObject({ type: z.literal("item.completed"), item: z.looseObject({ type: z.string() }) }),
  z.looseObject({ type: z.literal("error"), message: z.string() }),
]);
export type CodexEvent = z.infer<typeof eventSchema>;

/** One stdout line of the CLI: an event, a line to pass on as stderr, or one to skip (an event type unknown here). */
export type CodexLine =
  | { kind: "event"; event: CodexEvent }
  | { kind: "not_json"; text: string }
  | { kind: "unknown"; type: string };

export function parseCodexLine(line: string): CodexLine {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { kind: "not_json", text: line };
  }
  const parsed = eventSchema.safeParse(json);
  if (parsed.success) return { kind: "event", event: parsed.data };
  const type = z.looseObject({ type: z.string() }).safeParse(json);
  return { kind: "unknown", type: type.success ? type.data.type : "(none)" };
}

/** Token counts as the CLI reports them: the thread's totals so far, not this turn's. */
export interface UsageTotals {
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
}

const NO_USAGE: UsageTotals = { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 };

/** The server name Codex shows the bot's own tools under; their calls are named by the tool alone. */
const BOT_SERVER = "bot";
/** How often a tool step that is still running is reported again (the status line shows its time). */
export const PROGRESS_EVERY_MS = 10_000;

interface OpenStep {
  toolName: string;
  startedAt: number;
  reportedAt: number;
}

/**
 * Codex's events as `AgentEvent`s. `codex exec --json` has no token-level text deltas: each agent message arrives
 * whole when it is complete, so each becomes one `text_delta` (a message before a tool step is its preamble; the
 * Worker starts the answer afresh at the next `tool_start`). Mapping:
 * - `thread.started` → `session_init` (the thread id resumes the session);
 * - `item.started` of a command, file change, MCP tool call, web search or sub-agent call → `tool_start` (a file
 *   change or other step that only ever completes gets its `tool_start` then); `tick()` sends `tool_progress` for
 *   steps still running;
 * - `item.completed` of an `agent_message` → `text_delta`; of an `error` item (a non-fatal warning) → `adapter_stderr`;
 * - `error` → `adapter_stderr` (the CLI reports a retry this way too; only `turn.failed` ends the turn);
 * - `turn.completed` → `usage` (this turn's tokens: the CLI reports the thread's totals, so those `previous` to it
 *   are subtracted), then `result` with the last agent message;
 * - `turn.failed` → a classified `error`.
 */
export class CodexEventMapper {
  // Plain fields, not parameter properties: the runner runs under Node's type stripping.
  private readonly previous: UsageTotals;
  private readonly now: () => number;
  private readonly steps = new Map<string, OpenStep>();
  private lastMessage = "";
  private threadId: string | undefined;
  /** The thread's totals after this turn, once it completed. */
  totals: UsageTotals | undefined;

  constructor(options: { previous?: UsageTotals; now?: () => number } = {}) {
    this.previous = options.previous ?? NO_USAGE;
    this.now = options.now ?? Date.now;
  }

  /** The thread this run is on, once the CLI said so. */
  get thread(): string | undefined {
    return this.threadId;
  }

  map(event: CodexEvent): AgentEvent[] {
    switch (event.type) {
      case "thread.started":
        if (event.thread_id === this.threadId) return [];
        this.threadId = event.thread_id;
        return [{ type: "session_init", sessionId: event.thread_id }];
      case "turn.started":
        return [];
      case "item.started":
      case "item.updated":
        return this.stepStarted(event.item);
      case "item.completed":
        return this.itemCompleted(event.item);
      case "error":
        return [{ type: "adapter_stderr", message: event.message }];
      case "turn.completed":
        return this.completed(event.usage);
      case "turn.failed":
        return [this.failure(event.error.message)];
      default:
        return assertNever(event);
    }
  }

  /** `tool_progress` for each step still running whose last report is `PROGRESS_EVERY_MS` old. */
  tick(): AgentEvent[] {
    const now = this.now();
    const events: AgentEvent[] = [];
    for (const step of this.steps.values()) {
      if (now - step.reportedAt < PROGRESS_EVERY_MS) continue;
      step.reportedAt = now;
      events.push({ type: "tool_progress", toolName: step.toolName, elapsedSeconds: (now - step.startedAt) / 1000 });
    }
    return events;
  }

  failure(message: string, classified: Classified = classifyCodexError(message)): AgentEvent {
    return { type: "error", ...classified, message };
  }

  private stepStarted(raw: unknown): AgentEvent[] {
    const item = itemSchema.safeParse(raw);
    if (!item.success) return [];
    const step = describeStep(item.data);
    if (!step || this.steps.has(item.data.id)) return [];
    const now = this.now();
    this.steps.set(item.data.id, { toolName: step.toolName, startedAt: now, reportedAt: now });
    return [{ type: "tool_start", ...step }];
  }

  private itemCompleted(raw: unknown): AgentEvent[] {
    const item = itemSchema.safeParse(raw);
    if (!item.success) return [];
    const data = item.data;
    switch (data.type) {
      case "agent_message":
        if (data.text === "") return [];
        this.lastMessage = data.text;
        return [{ type: "text_delta", text: data.text }];
      case "error":
        return [{ type: "adapter_stderr", message: data.message }];
      default: {
        // A step that only ever completes (a file change) is announced now; one that started is done.
        const started = this.steps.delete(data.id);
        const step = describeStep(data);
        return started || !step ? [] : [{ type: "tool_start", ...step }];
      }
    }
  }

  private completed(usage: CodexUsage): AgentEvent[] {
    const totals: UsageTotals = {
      input: count(usage.input_tokens),
      cachedInput: count(usage.cached_input_tokens),
      cacheWrite: count(usage.cache_write_input_tokens),
      output: count(usage.output_tokens),
    };
    this.totals = totals;
    this.steps.clear();
    const turn = {
      input: Math.max(0, totals.input - this.previous.input),
      cachedInput: Math.max(0, totals.cachedInput - this.previous.cachedInput),
      cacheWrite: Math.max(0, totals.cacheWrite - this.previous.cacheWrite),
      output: Math.max(0, totals.output - this.previous.output),
    };
    return [
      {
        type: "usage",
        // OpenAI's input count includes the cached tokens, as the event's inputTokens does.
        inputTokens: turn.input,
        outputTokens: turn.output,
        cacheReadTokens: turn.cachedInput,
        cacheWriteTokens: turn.cacheWrite,
      },
      { type: "result", text: this.lastMessage },
    ];
  }
}

/** A step's name and argument preview for the status line, or undefined for items that are not steps. */
function describeStep(item: CodexItem): { toolName: string; preview: string } | undefined {
  switch (item.type) {
    case "command_execution":
      return { toolName: "Shell", preview: toolPreview(unwrapShell(item.command)) };
    case "file_change":
      return { toolName: "Edit", preview: toolPreview(item.changes.map((change) => change.path).join(", ")) };
    case "mcp_tool_call":
      return {
        toolName: truncate(item.server === BOT_SERVER ? item.tool : `${item.server}__${item.tool}`, 300),
        preview: toolPreview(JSON.stringify(item.arguments ?? {})),
      };
    case "web_search":
      return { toolName: "WebSearch", preview: toolPreview(item.query) };
    case "collab_tool_call":
      return { toolName: "Agent", preview: toolPreview(item.tool) };
    case "agent_message":
    case "reasoning":
    case "todo_list":
    case "plan":
    case "error":
      return undefined;
    default:
      return assertNever(item);
  }
}

/** `/bin/bash -lc 'ls -la'` → `ls -la`: the command the model wrote, without the shell Codex wraps it in. */
export function unwrapShell(command: string): string {
  const match = /^\S*\/(?:ba|z)?sh -l?c (['"])([\s\S]*)\1$/.exec(command.trim());
  return match?.[2] ?? command;
}

function count(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

function assertNever(value: never): never {
  throw new Error(`unexpected Codex event ${JSON.stringify(value)}`);
}
