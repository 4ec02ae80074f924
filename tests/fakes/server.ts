import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "../../scripts/read-body.ts";
import { anthropicMessage, openaiCompletion } from "./bodies.ts";
import { searchDefault } from "./search-apis.ts";
import { anthropicErrorEvent, anthropicEvents, openaiEvents, type StreamShape } from "./streams.ts";
import { htmlProblem } from "./telegram-html.ts";

/**
 * Fake upstreams on 127.0.0.1, one server: Telegram (`/telegram/bot<token>/<method>`), OpenAI (`/openai/v1/...`),
 * Anthropic (`/anthropic/v1/...`), an agent runner (`/runner/run`), plain web pages (`/web/...`), web search APIs
 * (`/search/...`: Brave, Tavily, SearXNG; see search-apis.ts) and a webhook receiver (`/webhook`, for the polling bridge). Tests script
 * answers per service through `/__control/*` and read back what each fake received; workerd code reaches it by URL.
 */
export type Service = "telegram" | "openai" | "anthropic" | "runner" | "web" | "search" | "webhook";

/** A file the fake Telegram serves through `getFile` and `/file/bot<token>/<path>` (scripted with `/__control/file`). */
export interface FakeFile {
  fileId: string;
  /** The file's bytes, base64. */
  base64: string;
  contentType?: string;
  /** What `getFile` says the size is, when it should differ from the bytes (a file over the limit). */
  announcedSize?: number;
}

/** A tiny valid PNG (1×1), the default content of any file the tests did not script, and of generated images. */
export const TINY_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export interface ScriptedResponse {
  /** Telegram only: the Bot API method this answer is for (other methods keep their defaults). */
  method?: string;
  /** Web and search: the path this answer is for. OpenAI: an answer for this path only (e.g. `/openai/v1/audio/transcriptions`);
   * answers without a path go to chat completions. */
  path?: string;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  text?: string;
  /** Wait before answering. */
  delayMs?: number;
  /** NDJSON lines (runner), each written after its own delay; `hang` keeps the stream open afterwards. */
  lines?: { line: string; delayMs?: number }[];
  hang?: boolean;
  /** Drop the connection without an answer. */
  destroy?: boolean;
  /** OpenAI chat completions: answer only a request whose last user message contains this (other calls, such as a
   * summary made meanwhile, get theirs elsewhere). */
  forUserText?: string;
  /** Model APIs: how a streamed request gets this answer (a JSON `body`, sent as server-sent events). */
  stream?: StreamShape;
}

export interface RecordedRequest {
  service: Service;
  method: string;
  path: string;
  /** The query string, with its `?` (empty when there is none). */
  query: string;
  headers: Record<string, string>;
  body: unknown;
  at: number;
  /** Telegram: the `result` the fake answered with (a sent message's id is there). */
  result?: unknown;
}

export interface FakeOptions {
  /** Latency of the default model answers (the benchmark's "1-second model"). */
  modelDelayMs?: number;
  /** A streamed default answer is sent in 20 pieces spread over this long, the first at once (a model writing). */
  streamSpreadMs?: number;
  /** Keep no request log (the benchmark sends hundreds of thousands of requests). */
  recordRequests?: boolean;
  /** 0 (the default) picks a free port. */
  port?: number;
}

export interface Fakes {
  url: string;
  server: Server;
  close(): Promise<void>;
  options: FakeOptions;
  requests: RecordedRequest[];
  counters: Map<string, number>;
  onRequest?: (request: RecordedRequest) => void;
}

export async function startFakes(options: FakeOptions = {}): Promise<Fakes> {
  const scripts = new Map<Service, ScriptedResponse[]>();
  const files = new Map<string, FakeFile>();
  const waiters = new Set<() => void>();
  let messageId = 1000;
  const hanging = new Set<ServerResponse>();

  const fakes: Fakes = {
    url: "",
    server: undefined as unknown as Server,
    options,
    requests: [],
    counters: new Map(),
    close: async () => {
      for (const response of hanging) response.destroy();
      fakes.server.closeAllConnections();
      await new Promise((resolve) => fakes.server.close(resolve));
    },
  };

  const take = (service: Service, predicate: (script: ScriptedResponse) => boolean): ScriptedResponse | undefined => {
    const queue = scripts.get(service) ?? [];
    const index = queue.findIndex(predicate);
    return index >= 0 ? queue.splice(index, 1)[0] : undefined;
  };

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? "/", "http://fake");
      const raw = await readBody(request);
      if (url.pathname.startsWith("/__control/")) return await control(url, raw, response);

      const service = serviceOf(url.pathname);
      if (!service) return send(response, 404, { error: "unknown fake path" });
      let body: unknown = raw;
      try {
        body = raw === "" ? undefined : JSON.parse(raw);
      } catch {
        // keep the text
      }
      const method = service === "telegram" ? (url.pathname.split("/").at(-1) ?? "") : url.pathname;
      const record: RecordedRequest = {
        service,
        method,
        path: url.pathname,
        query: url.search,
        headers: headersOf(request),
        body,
        at: Date.now(),
      };
      fakes.counters.set(`${service}:${method}`, (fakes.counters.get(`${service}:${method}`) ?? 0) + 1);
      if (options.recordRequests !== false) fakes.requests.push(record);
      fakes.onRequest?.(record);
      for (const waiter of [...waiters]) waiter();

      if (service === "telegram" && url.pathname.startsWith("/telegram/file/")) {
        const file = files.get(method) ?? { fileId: method, base64: TINY_PNG_BASE64 };
        const bytes = Buffer.from(file.base64, "base64");
        response.writeHead(200, { "content-type": file.contentType ?? "application/octet-stream" });
        response.end(bytes);
        return;
      }
      const scripted =
        service === "telegram"
          ? take(service, (script) => script.method === method)
          : service === "web" || service === "search"
            ? take(service, (script) => script.path === undefined || script.path === url.pathname)
            : service === "openai"
              ? take(service, (script) =>
                  url.pathname.endsWith("/chat/completions")
                    ? (script.path === undefined || script.path === url.pathname) &&
                      (script.forUserText === undefined || lastUserText(body).includes(script.forUserText))
                    : script.path === url.pathname,
                )
              : take(service, () => true);
      const refused = service === "anthropic" ? anthropicRefusal(body) : undefined;
      if (refused) return send(response, 400, refused);
      const streamed =
        (service === "openai" || service === "anthropic") && (body as { stream?: unknown })?.stream === true;
      if (scripted) return await answer(response, scripted, streamed ? service : undefined);
      if (service === "search") {
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers))
          if (typeof value === "string") headers.set(name, value);
        const fake = searchDefault(url.pathname, url.searchParams, headers, body);
        if (fake.text !== undefined) {
          response.writeHead(fake.status, { "content-type": fake.contentType ?? "text/plain" });
          response.end(fake.text);
          return;
        }
        return send(response, fake.status, fake.body ?? {});
      }
      return await defaultAnswer(service, method, body, response, streamed, record);
    } catch (error) {
      send(response, 500, { error: String(error) });
    }
  });

  async function answer(
    response: ServerResponse,
    script: ScriptedResponse,
    streamAs?: "openai" | "anthropic",
  ): Promise<void> {
    if (script.delayMs) await sleep(script.delayMs);
    if (streamAs && script.body !== undefined && (script.status ?? 200) === 200) {
      const events =
        streamAs === "openai" ? openaiEvents(script.body, script.stream) : anthropicEvents(script.body, script.stream);
      return streamEvents(response, events, script.stream);
    }
    if (script.destroy) {
      response.socket?.destroy();
      return;
    }
    if (script.lines) {
      response.writeHead(script.status ?? 200, { "content-type": "application/x-ndjson", ...script.headers });
      response.flushHeaders();
      for (const { line, delayMs } of script.lines) {
        if (delayMs) await sleep(delayMs);
        if (response.destroyed) return;
        response.write(`${line}\n`);
      }
      if (script.hang) {
        hanging.add(response);
        response.on("close", () => hanging.delete(response));
        return;
      }
      response.end();
      return;
    }
    if (script.hang) {
      hanging.add(response);
      response.on("close", () => hanging.delete(response));
      return;
    }
    if (script.text !== undefined) {
      response.writeHead(script.status ?? 200, { "content-type": "text/plain", ...script.headers });
      response.end(script.text);
      return;
    }
    send(response, script.status ?? 200, script.body ?? {}, script.headers);
  }

  async function streamEvents(response: ServerResponse, events: string[], shape: StreamShape = {}): Promise<void> {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.flushHeaders();
    for (const [index, event] of events.entries()) {
      if (shape.breakAfter !== undefined && index >= shape.breakAfter) {
        if (shape.errorType) response.end(anthropicErrorEvent(shape.errorType));
        else response.socket?.destroy();
        return;
      }
      if (shape.delayMs && index > 0) await sleep(shape.delayMs);
      if (response.destroyed) return;
      response.write(event);
    }
    response.end();
  }

  async function defaultAnswer(
    service: Service,
    method: string,
    body: unknown,
    response: ServerResponse,
    streamed: boolean,
    record: RecordedRequest,
  ): Promise<void> {
    switch (service) {
      case "telegram": {
        if (method === "getUpdates") {
          // Like Telegram's long poll: hold an empty answer for the requested timeout (at most 2 s here).
          const seconds = Math.min(Number((body as { timeout?: number } | undefined)?.timeout ?? 0), 2);
          if (seconds > 0) await sleep(seconds * 1000);
        }
        if (method === "getFile") {
          const fileId = String((body as { file_id?: unknown } | undefined)?.file_id ?? "");
          const file = files.get(fileId) ?? { fileId, base64: TINY_PNG_BASE64 };
          record.result = {
            file_id: fileId,
            file_unique_id: `unique-${fileId}`,
            file_size: file.announcedSize ?? Buffer.from(file.base64, "base64").byteLength,
            // Telegram's paths are `<kind>/file_<n>.<ext>`; here the id, so that the download finds the file.
            file_path: `documents/${fileId}`,
          };
          return send(response, 200, { ok: true, result: record.result });
        }
        const refusal = telegramRefusal(method, body);
        if (refusal) return send(response, 400, { ok: false, error_code: 400, description: refusal });
        record.result = telegramDefault(method, body, ++messageId);
        return send(response, 200, { ok: true, result: record.result });
      }
      case "openai":
        if (method.endsWith("/audio/transcriptions")) return send(response, 200, { text: "Hello from a voice note." });
        if (method.endsWith("/images/generations")) {
          return send(response, 200, { created: 1, data: [{ b64_json: TINY_PNG_BASE64 }] });
        }
        if (options.modelDelayMs) await sleep(options.modelDelayMs);
        if (streamed && options.streamSpreadMs) {
          const [role = "", first = "", ...rest] = openaiEvents(openaiDefault(body), { pieces: 20 });
          // The first words go out with the opening chunk, at once; the rest follow over the spread.
          const events = [role + first, ...rest];
          return streamEvents(response, events, { delayMs: options.streamSpreadMs / events.length });
        }
        if (streamed) return streamEvents(response, openaiEvents(openaiDefault(body)));
        return send(response, 200, openaiDefault(body));
      case "anthropic":
        if (options.modelDelayMs) await sleep(options.modelDelayMs);
        if (streamed)
          return streamEvents(response, anthropicEvents(anthropicMessage("Hello from the fake Anthropic API.")));
        return send(response, 200, anthropicMessage("Hello from the fake Anthropic API."));
      case "runner":
        return send(response, 503, { error: "no runner scripted" });
      case "web":
        return send(response, 404, { error: "no page scripted" });
      case "search":
        return send(response, 404, { error: "answered above" });
      case "webhook":
        return send(response, 200, { ok: true });
    }
  }

  async function control(url: URL, raw: string, response: ServerResponse): Promise<void> {
    const action = url.pathname.slice("/__control/".length);
    if (action === "reset") {
      scripts.clear();
      files.clear();
      fakes.requests.length = 0;
      fakes.counters.clear();
      return send(response, 200, { ok: true });
    }
    if (action === "file") {
      const file = JSON.parse(raw) as FakeFile;
      files.set(file.fileId, file);
      return send(response, 200, { ok: true });
    }
    if (action === "script") {
      const { service, responses } = JSON.parse(raw) as { service: Service; responses: ScriptedResponse[] };
      scripts.set(service, [...(scripts.get(service) ?? []), ...responses]);
      return send(response, 200, { ok: true });
    }
    if (action === "requests") {
      return send(response, 200, filterRequests(url));
    }
    if (action === "wait") {
      // Long-poll until `count` requests match, or answer 408 with what there is after `timeout` ms.
      const count = Number(url.searchParams.get("count") ?? 1);
      const timeout = Number(url.searchParams.get("timeout") ?? 10_000);
      const matches = () => filterRequests(url);
      if (matches().length >= count) return send(response, 200, matches());
      await new Promise<void>((resolve) => {
        const waiter = () => {
          if (matches().length < count) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve();
        }, timeout);
        waiters.add(waiter);
      });
      const found = matches();
      return send(response, found.length >= count ? 200 : 408, found);
    }
    send(response, 404, { error: "unknown control action" });
  }

  function filterRequests(url: URL): RecordedRequest[] {
    const service = url.searchParams.get("service");
    const method = url.searchParams.get("method");
    const chatId = url.searchParams.get("chatId");
    return fakes.requests.filter(
      (request) =>
        (!service || request.service === service) &&
        (!method || request.method === method) &&
        (!chatId || String((request.body as { chat_id?: unknown } | undefined)?.chat_id) === chatId),
    );
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  fakes.server = server;
  fakes.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fakes;
}

function serviceOf(path: string): Service | undefined {
  const first = path.split("/")[1];
  return first === "telegram" ||
    first === "openai" ||
    first === "anthropic" ||
    first === "runner" ||
    first === "web" ||
    first === "search" ||
    first === "webhook"
    ? first
    : undefined;
}

/** What Telegram itself would refuse in a default answer: HTML it cannot parse, or an edit that changes nothing. */
function telegramRefusal(method: string, body: unknown): string | undefined {
  const payload = (body ?? {}) as { text?: string; parse_mode?: string; chat_id?: number; message_id?: number };
  if (payload.parse_mode === "HTML" && typeof payload.text === "string") {
    const problem = htmlProblem(payload.text);
    if (problem) return `Bad Request: can't parse entities: ${problem}`;
  }
  if (method === "sendMessage" || method === "editMessageText") {
    const key = `${payload.chat_id}:${payload.message_id}`;
    if (method === "editMessageText" && shownTexts.get(key) === JSON.stringify(body)) {
      return "Bad Request: message is not modified: specified new message content and reply markup are exactly the same";
    }
    if (method === "editMessageText") shownTexts.set(key, JSON.stringify(body));
  }
  return undefined;
}

/** What the Messages API refuses before answering: a request that names a tool twice (a server tool included). */
function anthropicRefusal(body: unknown): unknown {
  const tools = ((body ?? {}) as { tools?: { name?: string }[] }).tools ?? [];
  const names = tools.map((tool) => tool.name);
  if (new Set(names).size === names.length) return undefined;
  return { type: "error", error: { type: "invalid_request_error", message: "tools: Tool names must be unique." } };
}

/** The last edit of each message, to answer an identical edit as Telegram does. */
const shownTexts = new Map<string, string>();

function telegramDefault(method: string, body: unknown, messageId: number): unknown {
  const payload = (body ?? {}) as { chat_id?: number; text?: string; message_id?: number };
  switch (method) {
    case "getMe":
      return { id: 123456, is_bot: true, first_name: "Testbot", username: "testbot" };
    case "sendMessage":
      return {
        message_id: messageId,
        date: Math.floor(Date.now() / 1000),
        chat: { id: payload.chat_id, type: "private" },
        text: payload.text,
      };
    case "editMessageText":
      return {
        message_id: payload.message_id,
        date: Math.floor(Date.now() / 1000),
        chat: { id: payload.chat_id, type: "private" },
        text: payload.text,
      };
    case "getUpdates":
      return [];
    case "getWebhookInfo":
      return { url: "", has_custom_certificate: false, pending_update_count: 0 };
    default:
      return true;
  }
}

/**
 * The default model answer echoes the turn's new user messages (those after the last assistant message), joined by
 * " | ", so tests and the benchmark can tell which messages a turn answered.
 */
function openaiDefault(body: unknown): unknown {
  const messages = (body as { messages?: { role: string; content: unknown }[] })?.messages ?? [];
  const lastAssistant = messages.map((message) => message.role).lastIndexOf("assistant");
  const fresh = messages.slice(lastAssistant + 1).filter((message) => message.role === "user");
  return openaiCompletion(`echo: ${fresh.map((message) => contentText(message.content)).join(" | ")}`);
}

/** The text of a chat completion request's last user message. */
function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] })?.messages ?? [];
  return contentText(messages.findLast((message) => message.role === "user")?.content);
}

/** A message's text; of content parts, the text parts, with `(image)` and `(file name)` for the others. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: string; file?: { filename?: string } }) =>
      part.type === "text" ? part.text : part.type === "image_url" ? "(image)" : `(file ${part.file?.filename})`,
    )
    .join(" ");
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) return;
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of [
    "authorization",
    "x-api-key",
    "x-subscription-token",
    "content-type",
    "anthropic-version",
    "retry-after",
  ]) {
    const value = request.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
