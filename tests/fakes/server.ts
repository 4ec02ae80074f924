import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BotApi } from "../../scripts/bot-api/bot-api.ts";
import { ChatStore } from "../../scripts/bot-api/chat-store.ts";
import { readParams } from "../../scripts/bot-api/params.ts";
import { NOT_FOUND, type Refusal, serverError, tooManyRequests } from "../../scripts/bot-api/refusal.ts";
import { startTdlib, type TdlibStatus, type TdParseMode } from "../../scripts/bot-api/tdlib.ts";
import { describeViolation, type Violation } from "../../scripts/bot-api/vocabulary.ts";
import { multipartFields, readBodyBytes } from "../../scripts/read-body.ts";
import { silentOggOpus } from "../../scripts/stand-in-model/ogg-opus.ts";
import { anthropicMessage, openaiCompletion } from "./bodies.ts";
import { modelsList, retiredRefusal } from "./models.ts";
import { type RecordedFormat, recordedEvents } from "./recorded-events.ts";
import { readRecordedAnswer } from "./recorded-streams.ts";
import { searchDefault } from "./search-apis.ts";
import { anthropicErrorEvent, anthropicEvents, openaiEvents, type StreamShape } from "./streams.ts";

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
  /** Model APIs: how a streamed request gets this answer (a JSON `body`, sent as server-sent events). */
  stream?: StreamShape;
  /**
   * Model APIs: answer with a recorded answer of a real API, by its file name in ../shared/fixtures/recorded-streams
   * (see recorded-streams.ts): a stream (`.chunks.txt`) replayed event by event to a streamed request, or a whole answer
   * (`.json`), streamed as any scripted `body` is when the request streams.
   */
  replay?: string;
  /**
   * Model APIs: this answer is only for a request whose body contains every one of these texts (a fake model that
   * decides by what it is shown, or two turns running at once that each take their own answer).
   */
  when?: string[];
}

export interface RecordedRequest {
  service: Service;
  method: string;
  path: string;
  /** The query string, with its `?` (empty when there is none). */
  query: string;
  headers: Record<string, string>;
  /** JSON bodies parsed; Telegram's parameters however they came (JSON, form, multipart: a file is `{ file, size }`). */
  body: unknown;
  at: number;
  /** Telegram: the `result` the fake answered with (a sent message's id is there). */
  result?: unknown;
  /** Telegram: the description of a refusal (4xx/5xx), scripted or the fake's own. */
  refusal?: string;
  /** Telegram: what the fake measured when it refused a rich message (not part of Telegram's answer). */
  detail?: string;
  /** Telegram: the answer was a scripted one. */
  scripted?: boolean;
  /** A multipart upload (sendPhoto, sendVoice): its text fields, and its files with their size and first bytes. */
  form?: Record<string, string | RecordedFile>;
}

export interface RecordedFile {
  fileName: string;
  type: string;
  size: number;
  /** The first four bytes as text: "OggS" for an OGG file, "ID3" and a byte for MP3. */
  magic: string;
  base64: string;
}

/**
 * Telegram's behaviour switched per test through `POST /__control/telegram` (reset with everything else):
 * `richMessages: false` plays a Bot API server without rich messages (sendRichMessage and sendRichMessageDraft
 * answer 404, an edit's rich_message is ignored); `outage` answers every method with a 5xx (or drops the
 * connection) until a time (epoch ms) or until switched off (`null`); `rateLimit` answers a method's next `times`
 * calls (default 1) with 429 and `retry_after`; `openQuery` tells Telegram of a button press or a widget tap
 * (Bot API 10.4) the bot may answer, `ageMs` ago (default now), as the updates a test posts to the Worker do not pass
 * through the fake.
 */
export interface TelegramSwitches {
  richMessages?: boolean;
  /** Off: a server without widgets (Bot API 10.4): the widget methods answer 404. */
  widgets?: boolean;
  outage?: { status?: 500 | 502 | 503 | 504; drop?: boolean; until?: number } | null;
  rateLimit?: { method: string; retryAfter: number; times?: number };
  openQuery?: { kind: "callback" | "widget"; id: string; chatId?: number; fromId?: number; ageMs?: number };
}

/** What `GET /__control/telegram` reports. */
export interface TelegramReport {
  tdlib: TdlibStatus;
  violations: (Violation & { at: number; text: string })[];
  richMessages: boolean;
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
  /** The fake Telegram: its chats, the violations it recorded, TDLib's parser. */
  telegram: BotApi;
  /** Whether TDLib's parser runs here (when it does not, formatted texts go unchecked and tests that need it skip). */
  tdlib: TdlibStatus;
  /** The fake Telegram's own refusals (not scripted ones) since the last reset, `method: description`, the first 100. */
  refusals: string[];
}

const FAKE_BOT = { id: 123456, is_bot: true, first_name: "Testbot", username: "testbot" } as const;

export async function startFakes(options: FakeOptions = {}): Promise<Fakes> {
  const scripts = new Map<Service, ScriptedResponse[]>();
  const files = new Map<string, FakeFile>();
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  const parser = await startTdlib();
  if (!parser.status.available) {
    console.warn(
      `[fakes] TDLib's parser is not available (${parser.status.reason}): formatted texts go unchecked, and the tests that need it are skipped`,
    );
  }
  const store = new ChatStore({
    firstMessageId: 1001,
    ...(options.recordRequests === false ? { maxPerChat: 200 } : {}),
  });
  const telegram = new BotApi({ parser, store, bot: FAKE_BOT });
  const violationTimes: number[] = [];
  let outage: TelegramSwitches["outage"] = null;
  let rateLimits: Required<NonNullable<TelegramSwitches["rateLimit"]>>[] = [];

  const fakes: Fakes = {
    url: "",
    server: undefined as unknown as Server,
    options,
    requests: [],
    counters: new Map(),
    telegram,
    tdlib: parser.status,
    refusals: [],
    close: async () => {
      for (const response of hanging) response.destroy();
      fakes.server.closeAllConnections();
      await new Promise((resolve) => fakes.server.close(resolve));
      await parser.close();
    },
  };

  const publish = (record: RecordedRequest) => {
    const key = `${record.service}:${record.method}`;
    fakes.counters.set(key, (fakes.counters.get(key) ?? 0) + 1);
    if (options.recordRequests !== false) {
      // In the order the requests came, even when one was answered sooner than another that came before it.
      let index = fakes.requests.length;
      while (index > 0 && fakes.requests[index - 1]!.at > record.at) index--;
      fakes.requests.splice(index, 0, record);
    }
    fakes.onRequest?.(record);
    for (const waiter of [...waiters]) waiter();
  };

  const take = (service: Service, predicate: (script: ScriptedResponse) => boolean): ScriptedResponse | undefined => {
    const queue = scripts.get(service) ?? [];
    const index = queue.findIndex(predicate);
    return index >= 0 ? queue.splice(index, 1)[0] : undefined;
  };

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? "/", "http://fake");
      const bytes = await readBodyBytes(request);
      const raw = bytes.toString("utf8");
      if (url.pathname.startsWith("/__control/")) return await control(url, raw, response);

      const service = serviceOf(url.pathname);
      if (!service) return send(response, 404, { error: "unknown fake path" });
      const method = service === "telegram" ? (url.pathname.split("/").at(-1) ?? "") : url.pathname;
      const isFile = service === "telegram" && url.pathname.startsWith("/telegram/file/");
      let body: unknown = raw;
      if (service === "telegram" && !isFile) {
        body = await readParams(method, raw, request.headers["content-type"], url.searchParams);
      } else {
        try {
          body = raw === "" ? undefined : JSON.parse(raw);
        } catch {
          // keep the text
        }
      }
      const record: RecordedRequest = {
        service,
        method,
        path: url.pathname,
        query: url.search,
        headers: headersOf(request),
        body,
        at: Date.now(),
        ...(request.headers["content-type"]?.startsWith("multipart/form-data")
          ? { form: recordedForm(request.headers["content-type"], bytes) }
          : {}),
      };
      // A Bot API call is published once its answer is known, so that whoever waits for it sees its result.
      if (service !== "telegram" || isFile) publish(record);

      if (isFile) {
        const file = files.get(method) ?? { fileId: method, base64: TINY_PNG_BASE64 };
        const bytes = Buffer.from(file.base64, "base64");
        response.writeHead(200, { "content-type": file.contentType ?? "application/octet-stream" });
        response.end(bytes);
        return;
      }
      if (service === "telegram") return await telegramCall(method, body as Record<string, unknown>, record, response);
      const served = modelsList(service, request.method ?? "GET", url.pathname);
      if (served !== undefined) return send(response, 200, served);
      const retired = retiredRefusal(service, body);
      if (retired !== undefined) return send(response, 404, retired);
      // A scripted model answer may wait for a request that shows given text (`when`), for concurrent callers.
      const shown = (script: ScriptedResponse) => (script.when ?? []).every((text) => raw.includes(text));
      const scripted =
        service === "web"
          ? take(service, (script) => script.path === url.pathname)
          : service === "search"
            ? take(service, (script) => script.path === undefined || script.path === url.pathname)
            : service === "openai"
              ? take(
                  service,
                  (script) =>
                    shown(script) &&
                    (url.pathname.endsWith("/chat/completions")
                      ? script.path === undefined || script.path === url.pathname
                      : script.path === url.pathname),
                )
              : take(service, shown);
      const refused = service === "anthropic" ? anthropicRefusal(body) : undefined;
      if (refused) return send(response, 400, refused);
      const streamed =
        (service === "openai" || service === "anthropic") && (body as { stream?: unknown })?.stream === true;
      if (scripted?.replay !== undefined)
        return replay(response, scripted, { streamed, format: formatOf(service, url.pathname) });
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
      return await defaultAnswer(service, method, body, response, streamed);
    } catch (error) {
      send(response, 500, { error: String(error) });
    }
  });

  /**
   * One Bot API call: checked against the Bot API's methods and fields (violations recorded), then the switches
   * (outage, rate limit), then a scripted answer, then Telegram's own answer (scripts/bot-api/bot-api.ts).
   */
  async function telegramCall(
    method: string,
    params: Record<string, unknown>,
    record: RecordedRequest,
    response: ServerResponse,
  ): Promise<void> {
    const before = telegram.violations.length;
    const inspection = telegram.inspect(method, params);
    for (let index = before; index < telegram.violations.length; index++) violationTimes[index] = record.at;
    const refuse = (refusal: Refusal, detail?: string) => {
      record.refusal = refusal.description;
      if (detail) record.detail = detail;
      if (fakes.refusals.length < 100) fakes.refusals.push(`${method}: ${refusal.description}`);
      publish(record);
      send(response, refusal.status, {
        ok: false,
        error_code: refusal.status,
        description: refusal.description,
        ...(refusal.parameters ? { parameters: refusal.parameters } : {}),
      });
    };
    if (!inspection.method) return refuse(NOT_FOUND);
    if (outage && outage.until !== undefined && Date.now() >= outage.until) outage = null;
    if (outage) {
      if (outage.drop) {
        publish(record);
        response.socket?.destroy();
        return;
      }
      return refuse(serverError(outage.status ?? 502));
    }
    const limit = rateLimits.find((entry) => entry.method === inspection.method);
    if (limit) {
      limit.times -= 1;
      rateLimits = rateLimits.filter((entry) => entry.times > 0);
      return refuse(tooManyRequests(limit.retryAfter));
    }
    const scripted = take("telegram", (script) => script.method === inspection.method || script.method === method);
    if (scripted) {
      record.scripted = true;
      const body = scripted.body as { ok?: boolean; description?: string; result?: unknown } | undefined;
      if ((scripted.status ?? 200) >= 400) record.refusal = String(body?.description ?? scripted.status);
      if ((scripted.status ?? 200) === 200 && body?.ok === true) {
        record.result = body.result;
        telegram.adopt(inspection.method, inspection.params, body.result);
      }
      publish(record);
      return await answer(response, scripted);
    }
    if (inspection.method === "getUpdates") {
      // Like Telegram's long poll: hold an empty answer for the requested timeout (at most 2 s here).
      record.result = [];
      publish(record);
      const seconds = Math.min(Number(params.timeout ?? 0), 2);
      if (seconds > 0) await sleep(seconds * 1000);
      return send(response, 200, { ok: true, result: [] });
    }
    if (inspection.method === "getFile") {
      const fileId = String(params.file_id ?? "");
      const file = files.get(fileId) ?? { fileId, base64: TINY_PNG_BASE64 };
      record.result = {
        file_id: fileId,
        file_unique_id: `unique-${fileId}`,
        file_size: file.announcedSize ?? Buffer.from(file.base64, "base64").byteLength,
        // Telegram's paths are `<kind>/file_<n>.<ext>`; here the id, so that the download finds the file.
        file_path: `documents/${fileId}`,
      };
      publish(record);
      return send(response, 200, { ok: true, result: record.result });
    }
    const outcome = await telegram.answer(inspection.method, inspection.params);
    if (!outcome.ok) return refuse(outcome.refusal, outcome.detail);
    record.result = outcome.result;
    publish(record);
    send(response, 200, { ok: true, result: outcome.result });
  }

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

  /** A recorded answer, as the API it was recorded from sends it (see ScriptedResponse.replay). */
  async function replay(
    response: ServerResponse,
    script: ScriptedResponse,
    request: { streamed: boolean; format: RecordedFormat },
  ): Promise<void> {
    const recorded = readRecordedAnswer(script.replay ?? "");
    if (recorded.kind === "json") {
      const as = request.format === "anthropic" ? "anthropic" : "openai";
      return await answer(response, { ...script, body: recorded.body }, request.streamed ? as : undefined);
    }
    if (!request.streamed) return send(response, 500, { error: "a recorded stream answers only a streamed request" });
    if (script.delayMs) await sleep(script.delayMs);
    return streamEvents(response, recordedEvents(recorded.lines, request.format), script.stream);
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
  ): Promise<void> {
    switch (service) {
      case "telegram":
        // Answered by telegramCall.
        return;
      case "openai":
        if (method.endsWith("/audio/transcriptions")) return send(response, 200, { text: "Hello from a voice note." });
        if (method.endsWith("/audio/speech")) return speech(response, body);
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
      telegram.reset();
      fakes.refusals.length = 0;
      violationTimes.length = 0;
      outage = null;
      rateLimits = [];
      return send(response, 200, { ok: true });
    }
    if (action === "telegram") {
      if (raw !== "") {
        const switches = JSON.parse(raw) as TelegramSwitches;
        if (switches.richMessages !== undefined) telegram.richMessages = switches.richMessages;
        if (switches.widgets !== undefined) telegram.widgetMethods = switches.widgets;
        if (switches.outage !== undefined) outage = switches.outage;
        if (switches.rateLimit) rateLimits.push({ times: 1, ...switches.rateLimit });
        if (switches.openQuery) {
          const { ageMs = 0, ...query } = switches.openQuery;
          telegram.openQuery({ ...query, openedAt: Date.now() - ageMs });
        }
      }
      const report: TelegramReport = {
        tdlib: parser.status,
        violations: telegram.violations.map((violation, index) => ({
          ...violation,
          at: violationTimes[index] ?? 0,
          text: describeViolation(violation),
        })),
        richMessages: telegram.richMessages,
      };
      return send(response, 200, report);
    }
    if (action === "telegram/messages") {
      const chatId = Number(url.searchParams.get("chatId"));
      const draft = telegram.store.draft(chatId);
      return send(response, 200, {
        messages: telegram.store.messages(chatId).map((message) => ({
          ...telegram.messageObject(message),
          content: message.content,
          sent: message.sent,
        })),
        draft: draft ?? null,
      });
    }
    if (action === "telegram/parse") {
      // TDLib's parser for tests that run where it cannot (workerd): [{ text, mode }] → its results.
      const items = JSON.parse(raw) as { text: string; mode: TdParseMode }[];
      if (!parser.status.available) return send(response, 503, { error: parser.status.reason });
      return send(response, 200, await parser.parse(items));
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

  /**
   * OpenAI's `/audio/speech`: a silent OGG/Opus file as long as the text would take to say (about 15 characters a
   * second), or OpenAI's refusal of a request it would refuse (no model, voice or input; input over 4,096 characters).
   */
  function speech(response: ServerResponse, body: unknown): void {
    const request = (body ?? {}) as { model?: unknown; input?: unknown; voice?: unknown; response_format?: unknown };
    const refusal = speechRefusal(request);
    if (refusal) {
      send(response, 400, { error: { ...refusal, type: "invalid_request_error", code: null } });
      return;
    }
    const audio = silentOggOpus({ seconds: Math.min(60, String(request.input).length / 15) });
    response.writeHead(200, { "content-type": request.response_format === "opus" ? "audio/ogg" : "audio/mpeg" });
    response.end(audio);
  }

  function filterRequests(url: URL): RecordedRequest[] {
    const service = url.searchParams.get("service");
    const method = url.searchParams.get("method");
    const chatId = url.searchParams.get("chatId");
    return fakes.requests.filter(
      (request) =>
        (!service || request.service === service) &&
        (!method || request.method === method) &&
        (!chatId || String(((request.form ?? request.body) as { chat_id?: unknown } | undefined)?.chat_id) === chatId),
    );
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  fakes.server = server;
  fakes.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fakes;
}

function recordedForm(contentType: string, bytes: Uint8Array): Record<string, string | RecordedFile> {
  const fields = multipartFields(contentType, bytes);
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      typeof value === "string"
        ? value
        : {
            fileName: value.fileName,
            type: value.type,
            size: value.bytes.length,
            magic: Buffer.from(value.bytes.subarray(0, 4)).toString("latin1"),
            base64: Buffer.from(value.bytes).toString("base64"),
          },
    ]),
  );
}

/** What OpenAI's `/audio/speech` refuses: no model, voice or input, or input over 4,096 characters. */
function speechRefusal(request: {
  model?: unknown;
  input?: unknown;
  voice?: unknown;
}): { message: string; param: string } | undefined {
  if (typeof request.model !== "string") return { message: "you must provide a model parameter", param: "model" };
  if (typeof request.voice !== "string") return { message: "you must provide a voice parameter", param: "voice" };
  if (typeof request.input !== "string" || request.input === "")
    return { message: "input is required", param: "input" };
  if (request.input.length > 4096) {
    return {
      message:
        "[{'type': 'string_too_long', 'loc': ('body', 'input'), 'msg': 'String should have at most 4096 characters', 'ctx': {'max_length': 4096}}]",
      param: "input",
    };
  }
  return undefined;
}

/** How a model API the fakes play frames a recorded stream, by service and path. */
function formatOf(service: Service, path: string): RecordedFormat {
  if (service === "anthropic") return "anthropic";
  return path.endsWith("/responses") ? "responses" : "chat-completions";
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

/** What the Messages API refuses before answering: a request that names a tool twice (a server tool included). */
function anthropicRefusal(body: unknown): unknown {
  const tools = ((body ?? {}) as { tools?: { name?: string }[] }).tools ?? [];
  const names = tools.map((tool) => tool.name);
  if (new Set(names).size === names.length) return undefined;
  return { type: "error", error: { type: "invalid_request_error", message: "tools: Tool names must be unique." } };
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
