import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake Anthropic Messages API on 127.0.0.1 that speaks what the Claude Code CLI uses: `POST /v1/messages` with
 * `stream: true`, answered as SSE (message_start, content_block_start / _delta / _stop, message_delta,
 * message_stop). Every request is recorded. A test scripts the answers with `respond`, a function of the request
 * body, so side calls the CLI may make (titles, compaction summaries, token counts) never upset the script;
 * whatever the function does not handle gets a plain text answer.
 */

export type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };

export type Reply =
  | { kind: "message"; blocks: Block[]; stopReason?: "end_turn" | "tool_use" }
  /** Sends message_start, then drops the connection. */
  | { kind: "drop" }
  /** An HTTP error with an Anthropic error body. */
  | { kind: "error"; status: number; type: string; message: string }
  /** Never answers (until the fake is closed). */
  | { kind: "hang" };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: MessagesBody | undefined;
  raw: string;
}

export interface MessagesBody {
  model?: string;
  stream?: boolean;
  system?: unknown;
  messages?: Array<{ role: string; content: unknown }>;
  tools?: Array<{ name: string; description?: string; input_schema?: unknown }>;
  [key: string]: unknown;
}

export const USAGE = { input: 20, cacheRead: 5, cacheWrite: 3, output: 7 };

export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  respond: (body: MessagesBody, request: RecordedRequest) => Reply | undefined = () => undefined;
  private server: http.Server | undefined;
  private waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  private counter = 0;
  url = "";

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

  /** The Messages API calls of the agent's main loop: those that offer the agent its tools. */
  mainRequests(): RecordedRequest[] {
    return this.requests.filter((request) => isMessagesCall(request) && isMainLoop(request.body));
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
    let body: MessagesBody | undefined;
    try {
      body = JSON.parse(raw) as MessagesBody;
    } catch {
      body = undefined;
    }
    const path = (request.url ?? "/").split("?")[0]!;
    const recorded: RecordedRequest = { method: request.method ?? "GET", path, headers: request.headers, body, raw };
    this.requests.push(recorded);
    for (const waiter of [...this.waiters]) {
      if (waiter.check()) {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        waiter.resolve();
      }
    }

    if (request.method === "POST" && path === "/v1/messages/count_tokens") {
      return json(response, 200, { input_tokens: 100 });
    }
    if (request.method !== "POST" || path !== "/v1/messages" || !body) {
      // Anything else the CLI might ask: a harmless empty answer.
      return json(response, 200, {});
    }
    let reply: Reply | undefined;
    try {
      reply = this.respond(body, recorded);
    } catch (error) {
      console.error("fake Anthropic script failed:", error);
      reply = { kind: "error", status: 500, type: "api_error", message: "the fake's script failed" };
    }
    reply ??= { kind: "message", blocks: [{ type: "text", text: "(fake) ok" }] };
    switch (reply.kind) {
      case "hang":
        return;
      case "error":
        return json(response, reply.status, { type: "error", error: { type: reply.type, message: reply.message } });
      case "drop":
        response.writeHead(200, { "content-type": "text/event-stream" });
        sse(response, "message_start", { message: this.messageStart(body.model) });
        setTimeout(() => response.destroy(), 20);
        return;
      case "message":
        return this.stream(response, body.model, reply.blocks, reply.stopReason);
    }
  }

  private messageStart(model: string | undefined): Record<string, unknown> {
    return {
      id: `msg_fake_${++this.counter}`,
      type: "message",
      role: "assistant",
      model: model ?? "claude-fake",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: USAGE.input,
        cache_read_input_tokens: USAGE.cacheRead,
        cache_creation_input_tokens: USAGE.cacheWrite,
        output_tokens: 1,
      },
    };
  }

  private stream(response: http.ServerResponse, model: string | undefined, blocks: Block[], stopReason?: string): void {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    sse(response, "message_start", { message: this.messageStart(model) });
    blocks.forEach((block, index) => {
      if (block.type === "text") {
        sse(response, "content_block_start", { index, content_block: { type: "text", text: "" } });
        // Word by word, as a real stream arrives: the runner forwards each piece as a text_delta.
        for (const piece of block.text.split(/(?<= )/)) {
          sse(response, "content_block_delta", { index, delta: { type: "text_delta", text: piece } });
        }
      } else {
        sse(response, "content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        });
        sse(response, "content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        });
      }
      sse(response, "content_block_stop", { index });
    });
    const stop = stopReason ?? (blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn");
    sse(response, "message_delta", {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: USAGE.output },
    });
    sse(response, "message_stop", {});
    response.end();
  }
}

function sse(response: http.ServerResponse, type: string, data: Record<string, unknown>): void {
  response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function json(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

export function isMessagesCall(request: RecordedRequest): boolean {
  return request.method === "POST" && request.path === "/v1/messages" && request.body !== undefined;
}

export function isMainLoop(body: MessagesBody | undefined): boolean {
  return Array.isArray(body?.tools) && body.tools.some((tool) => tool.name === "Bash");
}

/** The tool_result blocks of a request's messages, by tool_use id. */
export function toolResults(body: MessagesBody | undefined): Map<string, { content: unknown; is_error?: boolean }> {
  const results = new Map<string, { content: unknown; is_error?: boolean }>();
  for (const message of body?.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block.type === "tool_result" && typeof block.tool_use_id === "string") {
        results.set(block.tool_use_id, { content: block.content, is_error: block.is_error as boolean | undefined });
      }
    }
  }
  return results;
}

/** All the text of a request's messages, for `includes` checks. */
export function messagesText(body: MessagesBody | undefined): string {
  return JSON.stringify(body?.messages ?? []);
}
