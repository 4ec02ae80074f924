import type { ProxyUsage } from "../adapters/agent-runs.ts";
import { settingsOf } from "../config/loaded-settings.ts";
import type { Env } from "../env.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { assertNever } from "../lib/errors.ts";
import { admitProxiedCall, type RunLedger, readProxiedBody } from "./model-proxy-admission.ts";
import { withoutUrlSources } from "./proxy-url-sources.ts";

/**
 * A turn's agent makes a model call per step, a few seconds apart; a loop (or a background process holding the
 * token) calling back to back is cut off well before it costs much.
 */
export const MAX_MODEL_CALLS_PER_MINUTE = 30;

/** The calls of the last minute, `now` added if it is admitted. */
export function admitCall(
  recent: readonly number[],
  now: number,
): { admitted: boolean; recent: number[]; retryAfterSeconds: number } {
  const window = recent.filter((at) => now - at < 60_000);
  if (window.length >= MAX_MODEL_CALLS_PER_MINUTE) {
    const oldest = Math.min(...window);
    return {
      admitted: false,
      recent: window,
      retryAfterSeconds: Math.max(1, Math.ceil((oldest + 60_000 - now) / 1000)),
    };
  }
  return { admitted: true, recent: [...window, now], retryAfterSeconds: 0 };
}

const FORWARDED_PATHS = new Set(["/v1/messages", "/v1/messages/count_tokens"]);
/** The smallest thinking budget the API accepts. */
const MIN_THINKING_BUDGET = 1024;

export const EMPTY_USAGE: ProxyUsage = {
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

export interface ModelProxyInput {
  request: Request;
  env: Env;
  /** The id of the container the call came from (the outbound handler's context). */
  containerId: string;
  ledgerFor: (chatKey: string) => RunLedger;
  now?: number;
}

/**
 * The container's only way to the model (`http://anthropic.internal`): a call must carry, as its API key, the token
 * of a turn that is running in this very container's chat. Its model is replaced by the one the turn was started
 * with, `max_tokens` is capped at AGENT_MAX_OUTPUT_TOKENS, the real key is added, and the usage in the answer is
 * recorded against the run. Anything else (another path, no token, a finished turn's token, another chat's) is
 * refused before it costs anything.
 */
export async function proxyModelCall(input: ModelProxyInput): Promise<Response> {
  const { request, env } = input;
  const settings = settingsOf(env);
  if (!settings.anthropicApiKey) return refusal(503, "api_error", "ANTHROPIC_API_KEY is not set.");
  const incoming = new URL(request.url);
  if (request.method !== "POST" || !FORWARDED_PATHS.has(incoming.pathname)) {
    return refusal(403, "permission_error", "Only POST /v1/messages and /v1/messages/count_tokens are forwarded.");
  }
  const admission = await admitProxiedCall(input);
  switch (admission.kind) {
    case "refused":
      return refusal(
        admission.status,
        admission.reason === "auth" ? "authentication_error" : "invalid_request_error",
        admission.message,
      );
    case "rate_limited":
      return refusal(429, "rate_limit_error", admission.message, {
        "retry-after": String(admission.retryAfterSeconds),
      });
    case "admitted":
      break;
    default:
      return assertNever(admission, "admission");
  }
  const { model, ledger, runKey } = admission;

  const read = await readProxiedBody(request);
  switch (read.kind) {
    case "too_large":
      return refusal(413, "request_too_large", "The request is too large.");
    case "not_json":
      return refusal(400, "invalid_request_error", "The body is not JSON.");
    case "not_object":
      return refusal(400, "invalid_request_error", "The body is not a JSON object.");
    case "object":
      break;
    default:
      return assertNever(read, "body");
  }
  const pinned = pin(forwardedBody(read.body), {
    model,
    maxTokens: incoming.pathname === "/v1/messages" ? settings.agentMaxOutputTokens : undefined,
  });

  const upstream = new URL(settings.anthropicBaseUrl ?? "https://api.anthropic.com");
  upstream.pathname = `${upstream.pathname.replace(/\/$/, "")}${incoming.pathname}`;
  upstream.search = incoming.search;
  const headers = forwardedHeaders(request.headers, settings.anthropicApiKey);
  let answer: Response;
  try {
    answer = await fetch(upstream, { method: "POST", headers, body: JSON.stringify(pinned), signal: request.signal });
  } catch {
    // The CLI sees an API error it knows (and may retry), not a broken handler.
    return refusal(502, "api_error", "The model API could not be reached.");
  }
  if (incoming.pathname !== "/v1/messages" || !answer.ok || !answer.body) return answer;
  const metered = answer.body.pipeThrough(
    usageMeter((usage) => bestEffort("recording a proxied call's usage", () => ledger.record(runKey, usage))),
  );
  return new Response(metered, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
}

/**
 * What the runner's CLI needs of the Messages API, and nothing more: these body fields (no `mcp_servers`, `container`
 * or anything else that reaches past the egress list or the meter), client tools only (a tool with a `type` other
 * than `custom` runs on Anthropic's side: web search and fetch, code execution, MCP toolsets — fees and egress around
 * the meter), and these beta headers (what Claude Code sends; checked against the real CLI in the runner's tests).
 */
const FORWARDED_FIELDS = new Set([
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "metadata",
  "max_tokens",
  "thinking",
  "context_management",
  "output_config",
  "stream",
  "stop_sequences",
  "temperature",
  "top_p",
  "top_k",
]);
const FORWARDED_BETAS = new Set([
  "claude-code-20250219",
  "interleaved-thinking-2025-05-14",
  "context-management-2025-06-27",
  "mid-conversation-tool-changes-2026-07-01",
  "thinking-token-count-2026-05-13",
  "effort-2025-11-24",
  "thinking-display-updates-2026-08-18",
  "fine-grained-tool-streaming-2025-05-14",
  "token-efficient-tools-2025-02-19",
]);
const FORWARDED_HEADERS = ["anthropic-version", "content-type", "accept"];

export function forwardedBody(body: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (FORWARDED_FIELDS.has(field)) kept[field] = value;
  // An image or document by URL would have the provider fetch it: around the egress list.
  if (kept.messages !== undefined) kept.messages = withoutUrlSources(kept.messages);
  if (Array.isArray(kept.tools)) {
    kept.tools = kept.tools.filter((tool: unknown) => {
      const type = tool !== null && typeof tool === "object" ? (tool as { type?: unknown }).type : undefined;
      return type === undefined || type === "custom";
    });
  }
  return kept;
}

export function forwardedHeaders(incoming: Headers, apiKey: string): Headers {
  const headers = new Headers({ "x-api-key": apiKey });
  for (const name of FORWARDED_HEADERS) {
    const value = incoming.get(name);
    if (value !== null) headers.set(name, value);
  }
  const betas = (incoming.get("anthropic-beta") ?? "")
    .split(",")
    .map((beta) => beta.trim())
    .filter((beta) => FORWARDED_BETAS.has(beta));
  if (betas.length > 0) headers.set("anthropic-beta", betas.join(","));
  return headers;
}

/** The request as it goes upstream: the run's model, and `max_tokens` (and a thinking budget) within the cap. */
export function pin(
  body: Record<string, unknown>,
  limits: { model: string; maxTokens: number | undefined },
): Record<string, unknown> {
  const pinned: Record<string, unknown> = { ...body, model: limits.model };
  if (limits.maxTokens === undefined) return pinned;
  const asked = typeof body.max_tokens === "number" && body.max_tokens > 0 ? body.max_tokens : limits.maxTokens;
  const maxTokens = Math.min(asked, limits.maxTokens);
  pinned.max_tokens = maxTokens;
  // The API wants a thinking budget below max_tokens: a cut max_tokens cuts the budget, or turns thinking off.
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (
    thinking?.type === "enabled" &&
    typeof thinking.budget_tokens === "number" &&
    thinking.budget_tokens >= maxTokens
  ) {
    if (maxTokens - 1 >= MIN_THINKING_BUDGET) pinned.thinking = { ...thinking, budget_tokens: maxTokens - 1 };
    else delete pinned.thinking;
  }
  return pinned;
}

/**
 * Passes a Messages API answer through unchanged and reads its usage on the way: from the SSE events
 * (`message_start`, `message_delta`) of a stream, or from the JSON of a plain answer. The input is reported as soon
 * as `message_start` gives it, so a stream the client hangs up on is still counted; the rest at the end.
 */
export function usageMeter(report: (usage: ProxyUsage) => Promise<unknown>): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const usage: ProxyUsage = { ...EMPTY_USAGE, calls: 1 };
  /** What was reported already: each report adds only what is new, so the ledger never counts a call twice. */
  let reported: ProxyUsage = { ...EMPTY_USAGE };
  const reportSoFar = (): Promise<unknown> => {
    const delta: ProxyUsage = {
      calls: usage.calls - reported.calls,
      inputTokens: Math.max(0, usage.inputTokens - reported.inputTokens),
      outputTokens: Math.max(0, usage.outputTokens - reported.outputTokens),
      cacheReadTokens: Math.max(0, usage.cacheReadTokens - reported.cacheReadTokens),
      cacheWriteTokens: Math.max(0, usage.cacheWriteTokens - reported.cacheWriteTokens),
    };
    reported = { ...usage };
    return report(delta);
  };
  let pending = "";
  /** A plain JSON answer is kept (bounded) to be read at the end. */
  let whole = "";
  const MAX_KEPT = 1_000_000;
  const read = (fields: unknown): void => {
    if (fields === null || typeof fields !== "object") return;
    const values = fields as Record<string, unknown>;
    const count = (name: string): number | undefined =>
      typeof values[name] === "number" && Number.isFinite(values[name])
        ? Math.max(0, Math.round(values[name]))
        : undefined;
    // message_delta carries the cumulative counts: the latest value wins, never a sum.
    usage.inputTokens = count("input_tokens") ?? usage.inputTokens;
    usage.outputTokens = count("output_tokens") ?? usage.outputTokens;
    usage.cacheReadTokens = count("cache_read_input_tokens") ?? usage.cacheReadTokens;
    usage.cacheWriteTokens = count("cache_creation_input_tokens") ?? usage.cacheWriteTokens;
  };
  const line = (text: string): void => {
    if (!text.startsWith("data:")) return;
    try {
      const event = JSON.parse(text.slice(5).trim()) as {
        type?: unknown;
        message?: { usage?: unknown };
        usage?: unknown;
      };
      if (event.type === "message_start") {
        read(event.message?.usage);
        reportSoFar();
      } else if (event.type === "message_delta") read(event.usage);
    } catch {
      // not an event we read
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      const text = decoder.decode(chunk, { stream: true });
      if (whole.length < MAX_KEPT) whole += text;
      pending += text;
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        line(pending.slice(0, newline).trim());
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
      if (pending.length > MAX_KEPT) pending = "";
    },
    async flush() {
      line(pending.trim());
      if (usage.inputTokens === 0 && usage.outputTokens === 0 && whole.length < MAX_KEPT) {
        try {
          read((JSON.parse(whole) as { usage?: unknown }).usage);
        } catch {
          // a stream, or not JSON
        }
      }
      await reportSoFar();
    },
  });
}

function refusal(
  status: 400 | 401 | 403 | 413 | 429 | 502 | 503,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ type: "error", error: { type, message } }, { status, headers });
}
