import http from "node:http";
import type { AddressInfo } from "node:net";
import type {
  Response as ApiResponse,
  ResponseCreateParamsBase,
  ResponseOutputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";

/**
 * A fake OpenAI Responses API on 127.0.0.1 that speaks what the Codex CLI uses: `POST /v1/responses` with
 * `stream: true`, answered as SSE in the API's own event shapes (typed by the `openai` SDK's declarations):
 * `response.created`, `response.in_progress`, `response.output_item.added`, `response.content_part.added`,
 * `response.output_text.delta` / `.done`, `response.function_call_arguments.delta` / `.done`,
 * `response.output_item.done`, `response.completed` with the usage. Every request is recorded. A test scripts the
 * answers with `respond`, a function of the request body; whatever it does not handle gets a plain text answer.
 *
 * It refuses what the real API refuses, with its words: a wrong key (401 `invalid_api_key`), a body field the API
 * does not know (400 `unknown_parameter`), and any other path (404 "Invalid URL").
 */

export type OutputSpec =
  | { type: "message"; text: string }
  /** A call of a function tool; `namespace` for a tool the client loaded by tool search (Codex's MCP tools). */
  | { type: "function_call"; name: string; arguments: unknown; namespace?: string; callId?: string }
  /** A call of a freeform (`custom`) tool, such as Codex's `apply_patch`. */
  | { type: "custom_tool_call"; name: string; input: string; callId?: string }
  /** A call of the client-executed `tool_search` tool (Codex answers it with the matching deferred tools). */
  | { type: "tool_search_call"; arguments: { query: string; limit?: number }; callId?: string };

export type Reply =
  | { kind: "response"; output: OutputSpec[] }
  /** Sends `response.created` and the first text delta, then drops the connection. */
  | { kind: "drop" }
  /** An HTTP error with the API's error body. */
  | { kind: "error"; status: number; type: string; code: string | null; message: string }
  /** Never answers (until the fake is closed). */
  | { kind: "hang" };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: ResponsesBody | undefined;
  raw: string;
}

export type ResponsesBody = ResponseCreateParamsBase & Record<string, unknown>;

export const USAGE = { input: 40, cached: 8, output: 9, reasoning: 2 };

/** The body fields the real API accepts (ResponseCreateParamsBase's keys); another one is a 400. */
const KNOWN_FIELDS = new Set<string>([
  "access_programs",
  "background",
  "context_management",
  "conversation",
  "image",
  "include",
  "input",
  "instructions",
  "max_output_tokens",
  "max_tool_calls",
  "metadata",
  "model",
  "moderation",
  "parallel_tool_calls",
  "previous_response_id",
  "prompt",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning",
  "safety_identifier",
  "service_tier",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "text",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "truncation",
  "user",
  // Not in the SDK's declarations, but the Codex CLI sends it on every call to api.openai.com, which takes it.
  "client_metadata",
] satisfies Array<keyof ResponseCreateParamsBase | "client_metadata">);

export class FakeOpenAI {
  readonly requests: RecordedRequest[] = [];
  respond: (body: ResponsesBody, request: RecordedRequest) => Reply | undefined = () => undefined;
  /** The key `Authorization: Bearer …` must carry; undefined accepts any. */
  apiKey: string | undefined;
  private server: http.Server | undefined;
  private waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  private counter = 0;
  url = "";

  constructor(options: { apiKey?: string } = {}) {
    this.apiKey = options.apiKey;
  }

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => {
      void this.handle(request, response);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Forgets the recorded requests and the script. */
  reset(): void {
    this.requests.length = 0;
    this.respond = () => undefined;
  }

  /** The model calls (`POST /v1/responses` with a JSON body). */
  modelCalls(): RecordedRequest[] {
    return this.requests.filter(isResponsesCall);
  }

  /** Resolves once `check` holds (checked now and after every request), or fails after `timeoutMs`. */
  waitFor(check: () => boolean, timeoutMs = 30_000, what = "a request"): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter.resolve !== done);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ check, resolve: done });
    });
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    let raw = "";
    for await (const chunk of request) raw += String(chunk);
    let body: ResponsesBody | undefined;
    try {
      const parsed: unknown = JSON.parse(raw);
      body =
        parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as ResponsesBody) : undefined;
    } catch {
      body = undefined;
    }
    const method = request.method ?? "GET";
    const path = (request.url ?? "/").split("?")[0]!;
    const recorded: RecordedRequest = { method, path, headers: request.headers, body, raw };
    this.requests.push(recorded);
    for (const waiter of [...this.waiters]) {
      if (waiter.check()) {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        waiter.resolve();
      }
    }

    if (this.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.apiKey}`) {
      const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
      return apiError(response, 401, {
        message: presented
          ? `Incorrect API key provided: ${masked(presented)}. You can find your API key at https://platform.openai.com/account/api-keys.`
          : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (i.e. username: YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        param: null,
        code: presented ? "invalid_api_key" : null,
      });
    }
    if (method !== "POST" || path !== "/v1/responses") {
      return apiError(response, 404, {
        message: `Invalid URL (${method} ${path})`,
        type: "invalid_request_error",
        param: null,
        code: null,
      });
    }
    if (!body) {
      return apiError(response, 400, {
        message:
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.",
        type: "invalid_request_error",
        param: null,
        code: null,
      });
    }
    const unknown = Object.keys(body).find((key) => !KNOWN_FIELDS.has(key));
    if (unknown !== undefined) {
      return apiError(response, 400, {
        message: `Unknown parameter: '${unknown}'.`,
        type: "invalid_request_error",
        param: unknown,
        code: "unknown_parameter",
      });
    }

    let reply: Reply | undefined;
    try {
      reply = this.respond(body, recorded);
    } catch (error) {
      console.error("fake OpenAI script failed:", error);
      reply = { kind: "error", status: 500, type: "server_error", code: null, message: "the fake's script failed" };
    }
    reply ??= { kind: "response", output: [{ type: "message", text: "(fake) ok" }] };
    switch (reply.kind) {
      case "hang":
        return;
      case "error":
        return apiError(response, reply.status, {
          message: reply.message,
          type: reply.type,
          param: null,
          code: reply.code,
        });
      case "drop": {
        response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
        const stream = new EventWriter(response);
        stream.send({ type: "response.created", response: this.responseObject(body, "in_progress", []) });
        setTimeout(() => response.destroy(), 20);
        return;
      }
      case "response":
        return this.stream(response, body, reply.output);
    }
  }

  private responseObject(
    body: ResponsesBody,
    status: "in_progress" | "completed",
    output: ResponseOutputItem[],
    usage?: ResponseUsage,
  ): ApiResponse {
    const id = `resp_fake_${this.counter}`;
    return {
      id,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      status,
      access_programs: null,
      background: false,
      completed_at: status === "completed" ? Math.floor(Date.now() / 1000) : null,
      error: null,
      incomplete_details: null,
      instructions: typeof body.instructions === "string" ? body.instructions : null,
      max_output_tokens: typeof body.max_output_tokens === "number" ? body.max_output_tokens : null,
      max_tool_calls: null,
      metadata: {},
      model: typeof body.model === "string" ? body.model : "gpt-fake",
      output,
      output_text: output
        .flatMap((item) => (item.type === "message" ? item.content : []))
        .map((part) => (part.type === "output_text" ? part.text : ""))
        .join(""),
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: null,
      prompt_cache_key: body.prompt_cache_key ?? null,
      reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
      service_tier: "default",
      temperature: 1,
      text: { format: { type: "text" }, verbosity: "medium" },
      tool_choice: "auto",
      tools: [],
      top_p: 1,
      truncation: "disabled",
      ...(usage ? { usage } : {}),
    };
  }

  private stream(response: http.ServerResponse, body: ResponsesBody, specs: OutputSpec[]): void {
    this.counter++;
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    const events = new EventWriter(response);
    events.send({ type: "response.created", response: this.responseObject(body, "in_progress", []) });
    events.send({ type: "response.in_progress", response: this.responseObject(body, "in_progress", []) });
    const output: ResponseOutputItem[] = [];
    specs.forEach((spec, outputIndex) => {
      const itemId = `${ITEM_PREFIX[spec.type]}_fake_${this.counter}_${outputIndex}`;
      if (spec.type === "message") {
        events.send({
          type: "response.output_item.added",
          output_index: outputIndex,
          item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] },
        });
        events.send({
          type: "response.content_part.added",
          item_id: itemId,
          output_index: outputIndex,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [], logprobs: [] },
        });
        // Word by word, as a real stream arrives.
        for (const piece of spec.text.split(/(?<= )/)) {
          events.send({
            type: "response.output_text.delta",
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            delta: piece,
            logprobs: [],
          });
        }
        events.send({
          type: "response.output_text.done",
          item_id: itemId,
          output_index: outputIndex,
          content_index: 0,
          text: spec.text,
          logprobs: [],
        });
        const part = { type: "output_text" as const, text: spec.text, annotations: [], logprobs: [] };
        events.send({
          type: "response.content_part.done",
          item_id: itemId,
          output_index: outputIndex,
          content_index: 0,
          part,
        });
        const item: ResponseOutputItem = {
          id: itemId,
          type: "message",
          status: "completed",
          role: "assistant",
          content: [part],
        };
        events.send({ type: "response.output_item.done", output_index: outputIndex, item });
        output.push(item);
      } else if (spec.type === "custom_tool_call") {
        const callId = spec.callId ?? `call_fake_${this.counter}_${outputIndex}`;
        const base = { id: itemId, type: "custom_tool_call" as const, call_id: callId, name: spec.name };
        events.send({ type: "response.output_item.added", output_index: outputIndex, item: { ...base, input: "" } });
        events.send({
          type: "response.custom_tool_call_input.delta",
          item_id: itemId,
          output_index: outputIndex,
          delta: spec.input,
        });
        events.send({
          type: "response.custom_tool_call_input.done",
          item_id: itemId,
          output_index: outputIndex,
          input: spec.input,
        });
        const item: ResponseOutputItem = { ...base, input: spec.input };
        events.send({ type: "response.output_item.done", output_index: outputIndex, item });
        output.push(item);
      } else if (spec.type === "tool_search_call") {
        const callId = spec.callId ?? `call_fake_${this.counter}_${outputIndex}`;
        const base = { id: itemId, type: "tool_search_call" as const, call_id: callId, execution: "client" as const };
        events.send({
          type: "response.output_item.added",
          output_index: outputIndex,
          item: { ...base, status: "in_progress", arguments: {} },
        });
        const item: ResponseOutputItem = { ...base, status: "completed", arguments: spec.arguments };
        events.send({ type: "response.output_item.done", output_index: outputIndex, item });
        output.push(item);
      } else {
        const callId = spec.callId ?? `call_fake_${this.counter}_${outputIndex}`;
        const namespace = spec.namespace === undefined ? {} : { namespace: spec.namespace };
        const argumentsText = typeof spec.arguments === "string" ? spec.arguments : JSON.stringify(spec.arguments);
        events.send({
          type: "response.output_item.added",
          output_index: outputIndex,
          item: {
            id: itemId,
            type: "function_call",
            status: "in_progress",
            call_id: callId,
            name: spec.name,
            ...namespace,
            arguments: "",
          },
        });
        events.send({
          type: "response.function_call_arguments.delta",
          item_id: itemId,
          output_index: outputIndex,
          delta: argumentsText,
        });
        events.send({
          type: "response.function_call_arguments.done",
          item_id: itemId,
          output_index: outputIndex,
          arguments: argumentsText,
        });
        const item: ResponseOutputItem = {
          id: itemId,
          type: "function_call",
          status: "completed",
          call_id: callId,
          name: spec.name,
          ...namespace,
          arguments: argumentsText,
        };
        events.send({ type: "response.output_item.done", output_index: outputIndex, item });
        output.push(item);
      }
    });
    events.send({
      type: "response.completed",
      response: this.responseObject(body, "completed", output, {
        input_tokens: USAGE.input,
        input_tokens_details: { cached_tokens: USAGE.cached, cache_write_tokens: 0 },
        output_tokens: USAGE.output,
        output_tokens_details: { reasoning_tokens: USAGE.reasoning },
        total_tokens: USAGE.input + USAGE.output,
      }),
    });
    response.end();
  }
}

const ITEM_PREFIX: Record<OutputSpec["type"], string> = {
  message: "msg",
  function_call: "fc",
  custom_tool_call: "ctc",
  tool_search_call: "ts",
};

/** Each event as the API sends it: `event: <type>` and its JSON with a running `sequence_number`. */
class EventWriter {
  private sequence = 0;
  // A plain field, not a parameter property: Node's type stripping runs this file.
  private readonly response: http.ServerResponse;

  constructor(response: http.ServerResponse) {
    this.response = response;
  }

  send(event: DistributiveOmit<ResponseStreamEvent, "sequence_number">): void {
    const full = { ...event, sequence_number: this.sequence++ } as ResponseStreamEvent;
    this.response.write(`event: ${full.type}\ndata: ${JSON.stringify(full)}\n\n`);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function apiError(
  response: http.ServerResponse,
  status: number,
  error: { message: string; type: string; param: string | null; code: string | null },
): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error }));
}

/** How the API shows a wrong key: its start and end, the rest starred. */
function masked(key: string): string {
  return key.length <= 8 ? "*".repeat(key.length) : `${key.slice(0, 3)}${"*".repeat(key.length - 7)}${key.slice(-4)}`;
}

export function isResponsesCall(request: RecordedRequest): boolean {
  return request.method === "POST" && request.path === "/v1/responses" && request.body !== undefined;
}

/** The `function_call_output` items of a request's input, by call id. */
export function functionOutputs(body: ResponsesBody | undefined): Map<string, unknown> {
  const outputs = new Map<string, unknown>();
  const input: unknown[] = Array.isArray(body?.input) ? body.input : [];
  for (const item of input) {
    if (item === null || typeof item !== "object" || !("type" in item) || item.type !== "function_call_output")
      continue;
    if ("call_id" in item && typeof item.call_id === "string")
      outputs.set(item.call_id, "output" in item ? item.output : "");
  }
  return outputs;
}

/** All the text of a request's input and instructions, for `includes` checks. */
export function inputText(body: ResponsesBody | undefined): string {
  return JSON.stringify([body?.instructions ?? null, body?.input ?? []]);
}
