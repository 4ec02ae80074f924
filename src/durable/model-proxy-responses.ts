import { createParser } from "eventsource-parser";
import type { ProxyUsage } from "../adapters/agent-runs.ts";
import { settingsOf } from "../config/loaded-settings.ts";
import { assertNever } from "../lib/errors.ts";
import { utf8Bytes } from "../protocol/json-size.ts";
import { EMPTY_USAGE } from "./model-proxy.ts";
import { type AdmissionInput, admitProxiedCall, type ProxiedBody, readProxiedBody } from "./model-proxy-admission.ts";
import { withoutUrlSources } from "./proxy-url-sources.ts";

/** The one path the Codex CLI calls (`POST {base_url}/responses`, its base URL `http://openai.internal/v1`). */
const RESPONSES_PATH = "/v1/responses";

/**
 * The request fields forwarded as the CLI sent them (tool definitions filtered, see `allowedTools`). The proxy sets
 * `model`, `store` and `max_output_tokens` itself.
 */
const FORWARDED_FIELDS = new Set([
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "reasoning",
  "stream",
  "include",
  "prompt_cache_key",
  "text",
  "temperature",
  "top_p",
  "truncation",
]);
/**
 * Fields refused outright: they make the API answer from state kept on OpenAI's side or outside the stream the meter
 * reads (a stored conversation, a background run, a stored prompt). Any other field is dropped: metadata, telemetry
 * (`client_metadata`), `service_tier` (a dearer tier is the deployment's decision), and what the proxy does not know.
 */
const REFUSED_FIELDS = new Set(["previous_response_id", "conversation", "background", "prompt"]);
/** `include` values forwarded: the encrypted reasoning a stateless (`store: false`) conversation needs back. */
const INCLUDABLE = new Set(["reasoning.encrypted_content"]);
/** Tool types that run in the client (the container), where the egress list and the tool bridge apply. */
const CLIENT_TOOL_TYPES = new Set(["function", "custom"]);
/** Input items that carry tool definitions (Codex sends tools this way for some models, and after a tool search). */
const TOOL_CARRYING_ITEMS = new Set(["additional_tools", "tool_search_output"]);
/** Response headers not passed back: hop-by-hop, the body's encoding (the runtime decoded it), cookies. */
const DROPPED_RESPONSE_HEADERS = [
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "set-cookie",
];
/** What a token is taken to be when usage must be estimated (the project's estimate elsewhere: ~3 bytes a token). */
const BYTES_PER_TOKEN = 3;
/** A JSON (non-streamed) answer is kept up to this size to read its usage at the end. */
const MAX_KEPT_ANSWER = 1_000_000;

/**
 * The container's only way to OpenAI (`http://openai.internal`, for `codex-agent`): as the Messages API proxy does
 * for Claude, a call must carry the token of a turn running in this container's chat as its API key (`Authorization:
 * Bearer`), within the run's rate. Only `POST /v1/responses` is forwarded, with an allow list of body fields and of
 * tool types (no server-side tools: they would reach the web or OpenAI's services past the container's egress list
 * and the meter), the turn's model pinned, `max_output_tokens` capped at AGENT_MAX_OUTPUT_TOKENS, `store: false`,
 * and the real OPENAI_API_KEY added. The usage in the stream's last event is recorded against the run; when the
 * client hangs up before it, the call is recorded with an estimate from what was sent and what arrived.
 */
export async function proxyResponsesCall(input: AdmissionInput): Promise<Response> {
  const { request, env } = input;
  const settings = settingsOf(env);
  if (!settings.openaiApiKey) return apiError(503, "server_error", null, "OPENAI_API_KEY is not set.");
  const incoming = new URL(request.url);
  if (request.method !== "POST" || incoming.pathname !== RESPONSES_PATH) {
    return apiError(403, "invalid_request_error", "forbidden", `Only POST ${RESPONSES_PATH} is forwarded.`);
  }
  const admission = await admitProxiedCall(input);
  switch (admission.kind) {
    case "refused":
      return apiError(
        admission.status,
        "invalid_request_error",
        admission.reason === "auth" ? "invalid_api_key" : "budget_exceeded",
        admission.message,
      );
    case "rate_limited":
      return apiError(429, "rate_limit_error", "rate_limit_exceeded", admission.message, {
        "retry-after": String(admission.retryAfterSeconds),
      });
    case "admitted":
      break;
    default:
      return assertNever(admission, "admission");
  }
  const read: ProxiedBody = await readProxiedBody(request);
  switch (read.kind) {
    case "too_large":
      return apiError(413, "invalid_request_error", "request_too_large", "The request is too large.");
    case "not_json":
    case "not_object":
      return apiError(400, "invalid_request_error", null, "The body is not a JSON object.");
    case "object":
      break;
    default:
      return assertNever(read, "body");
  }
  const shaped = shapeResponsesRequest(read.body, {
    model: admission.model,
    maxOutputTokens: settings.agentMaxOutputTokens,
  });
  if (shaped.kind === "refused") {
    return apiError(400, "invalid_request_error", "unsupported_parameter", shaped.message, {}, shaped.field);
  }

  const headers = new Headers({
    "content-type": "application/json",
    accept: request.headers.get("accept") === "application/json" ? "application/json" : "text/event-stream",
    authorization: `Bearer ${settings.openaiApiKey}`,
  });
  let answer: Response;
  try {
    answer = await fetch(`${settings.openaiBaseUrl ?? "https://api.openai.com/v1"}/responses`, {
      method: "POST",
      headers,
      body: JSON.stringify(shaped.body),
      signal: request.signal,
    });
  } catch {
    // The CLI sees an API error it knows (and may retry), not a broken handler.
    return apiError(502, "server_error", null, "The model API could not be reached.");
  }
  const outgoing = new Headers(answer.headers);
  for (const name of DROPPED_RESPONSE_HEADERS) outgoing.delete(name);
  if (!answer.ok || !answer.body) {
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: outgoing });
  }
  const { ledger, runKey } = admission;
  const metered = meteredResponsesBody(answer.body, {
    requestBytes: read.bytes,
    report: (usage) => ledger.record(runKey, usage).catch(() => undefined),
  });
  return new Response(metered, { status: answer.status, statusText: answer.statusText, headers: outgoing });
}

type ShapedRequest =
  | { kind: "forward"; body: Record<string, unknown> }
  | { kind: "refused"; field: string; message: string };

/**
 * The request as it goes upstream: allowed fields only, client-run tools only (wherever tool definitions appear:
 * `tools`, and inside `additional_tools` and `tool_search_output` input items), `include` narrowed, `tool_choice`
 * reset to `auto` when it names a tool type that was left out, the run's model, `store: false`, and
 * `max_output_tokens` within the cap.
 */
function shapeResponsesRequest(
  body: Record<string, unknown>,
  limits: { model: string; maxOutputTokens: number },
): ShapedRequest {
  const refused = Object.keys(body).find((field) => REFUSED_FIELDS.has(field) && body[field] != null);
  if (refused !== undefined) {
    return { kind: "refused", field: refused, message: `The model proxy does not forward \`${refused}\`.` };
  }
  const shaped: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (FORWARDED_FIELDS.has(field)) shaped[field] = value;
  if (Array.isArray(body.tools)) shaped.tools = allowedTools(body.tools);
  // An image or file by URL would have the provider fetch it: around the egress list.
  if (Array.isArray(body.input)) shaped.input = withoutUrlSources(body.input.map(withAllowedTools));
  if (Array.isArray(body.include)) shaped.include = body.include.filter((item) => INCLUDABLE.has(String(item)));
  if (!isAllowedToolChoice(body.tool_choice)) shaped.tool_choice = "auto";
  shaped.model = limits.model;
  shaped.store = false;
  const asked = body.max_output_tokens;
  shaped.max_output_tokens =
    typeof asked === "number" && Number.isFinite(asked) && asked > 0
      ? Math.min(Math.floor(asked), limits.maxOutputTokens)
      : limits.maxOutputTokens;
  return { kind: "forward", body: shaped };
}

/** The tool definitions that run in the client: functions, freeform tools, namespaces of those, a client search. */
function allowedTools(tools: readonly unknown[]): unknown[] {
  const kept: unknown[] = [];
  for (const tool of tools) {
    if (!isRecord(tool) || typeof tool.type !== "string") continue;
    if (CLIENT_TOOL_TYPES.has(tool.type)) kept.push(tool);
    else if (tool.type === "namespace" && Array.isArray(tool.tools))
      kept.push({ ...tool, tools: allowedTools(tool.tools) });
    else if (tool.type === "tool_search" && tool.execution === "client") kept.push(tool);
  }
  return kept;
}

function withAllowedTools(item: unknown): unknown {
  if (!isRecord(item) || typeof item.type !== "string" || !TOOL_CARRYING_ITEMS.has(item.type)) return item;
  return Array.isArray(item.tools) ? { ...item, tools: allowedTools(item.tools) } : item;
}

function isAllowedToolChoice(choice: unknown): boolean {
  if (choice === undefined || typeof choice === "string") return true;
  return (
    isRecord(choice) && (choice.type === "function" || choice.type === "custom" || choice.type === "allowed_tools")
  );
}

/**
 * Passes a Responses API answer through unchanged and reads its usage on the way: from the `usage` of the stream's
 * last event (`response.completed`, or `response.incomplete` / `response.failed`), or of a plain JSON answer.
 * Reports once: at the end, or when the client hangs up, or the upstream breaks. Without a final usage, the call is
 * recorded with an estimate (the request's size in, the text and arguments that arrived out), never as free.
 */
function meteredResponsesBody(
  body: ReadableStream<Uint8Array>,
  options: { requestBytes: number; report: (usage: ProxyUsage) => Promise<unknown> },
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let final: ProxyUsage | undefined;
  let streamed = false;
  let deltaBytes = 0;
  let kept = "";
  const parser = createParser({
    onEvent: (message) => {
      streamed = true;
      let event: unknown;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      if (!isRecord(event) || typeof event.type !== "string") return;
      if (typeof event.delta === "string") deltaBytes += utf8Bytes(event.delta);
      if (
        (event.type === "response.completed" ||
          event.type === "response.incomplete" ||
          event.type === "response.failed") &&
        isRecord(event.response)
      ) {
        final = usageOf(event.response.usage) ?? final;
      }
    },
  });
  let reported: Promise<unknown> | undefined;
  const finish = (): Promise<unknown> => {
    if (!reported) {
      if (!final && !streamed && kept.length < MAX_KEPT_ANSWER) {
        try {
          const whole: unknown = JSON.parse(kept);
          if (isRecord(whole)) final = usageOf(whole.usage);
        } catch {
          // not a JSON answer
        }
      }
      reported = options.report(
        final ?? {
          ...EMPTY_USAGE,
          calls: 1,
          inputTokens: Math.ceil(options.requestBytes / BYTES_PER_TOKEN),
          outputTokens: Math.ceil(deltaBytes / BYTES_PER_TOKEN),
        },
      );
    }
    return reported;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        await finish();
        controller.error(error);
        return;
      }
      if (chunk.done) {
        const rest = decoder.decode();
        parser.feed(rest);
        if (kept.length < MAX_KEPT_ANSWER) kept += rest;
        await finish();
        controller.close();
        return;
      }
      controller.enqueue(chunk.value);
      const text = decoder.decode(chunk.value, { stream: true });
      parser.feed(text);
      if (kept.length < MAX_KEPT_ANSWER) kept += text;
    },
    async cancel(reason) {
      // The client hung up: the upstream is closed too, and what arrived so far is what is known.
      await reader.cancel(reason).catch(() => undefined);
      await finish();
    },
  });
}

/** The Responses API's usage as the ledger keeps it: input without the cached tokens, which are counted apart. */
function usageOf(usage: unknown): ProxyUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const count = (value: unknown): number =>
    typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
  const details = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const input = count(usage.input_tokens);
  const cacheRead = count(details.cached_tokens);
  const cacheWrite = count(details.cache_write_tokens);
  return {
    calls: 1,
    inputTokens: Math.max(0, input - cacheRead - cacheWrite),
    outputTokens: count(usage.output_tokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

/** An error in the API's own shape, which the CLI reads (and classifies by status). */
function apiError(
  status: 400 | 401 | 403 | 413 | 429 | 502 | 503,
  type: string,
  code: string | null,
  message: string,
  headers: Record<string, string> = {},
  param: string | null = null,
): Response {
  return Response.json({ error: { message, type, param, code } }, { status, headers });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
