import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AgentEvent } from "../src/adapters/events.ts";
import { type AdapterPayload, adapterPayloadSchema } from "../src/adapters/types.ts";
import { redact } from "./redact.ts";
import { runAgent, type TerminalEvent } from "./run-agent.ts";

export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** How long a shutdown waits for the running queries to wind down before the process goes anyway. */
const SHUTDOWN_GRACE_MS = 5_000;
/** How long a second run for a busy chat waits for the first one's client to turn out gone before the 409. */
const BUSY_GRACE_MS = 1_000;

export interface RunnerConfig {
  workspaceRoot: string;
  /** When set, `POST /run` wants `Authorization: Bearer <token>` (RUNNER_TOKEN). */
  token?: string;
  /** The CLI's environment before the runner's additions; defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

interface ActiveRun {
  chatKey: string;
  controller: AbortController;
  /** Writes the run's last event (if none was written yet) and ends the response. */
  finish: (event: TerminalEvent) => void;
  /** Whether the response has ended or its client left (the run may still be closing its CLI). */
  ended: () => boolean;
  /** Resolves when `ended()` turns true. */
  endedPromise: Promise<void>;
  done: Promise<unknown>;
}

export interface Runner {
  server: http.Server;
  /** Cancels every run (each stream gets a `cancelled` error), waits briefly for them, closes the server. */
  shutdown: () => Promise<void>;
}

/**
 * The agent runner's HTTP face: `GET /ping`, and `POST /run` with an adapter payload, answered as NDJSON — one
 * `AgentEvent` per line as it happens, the last one the only `result` or `error`. One run per chatKey at a time.
 */
export function createRunner(config: RunnerConfig): Runner {
  const log = config.log ?? ((line: string) => console.log(line));
  const runs = new Map<string, ActiveRun>();
  let shuttingDown = false;

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`[runner] request failed: ${redact(error instanceof Error ? error.message : String(error))}`);
      if (!response.headersSent) sendJson(response, 500, { error: "internal", message: "The runner failed." });
      else response.destroy();
    });
  });

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://runner");
    if (url.pathname === "/ping") {
      if (request.method !== "GET" && request.method !== "HEAD")
        return sendJson(response, 405, { error: "method_not_allowed", message: "Use GET." });
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      response.end("ok");
      return;
    }
    if (url.pathname !== "/run") return sendJson(response, 404, { error: "not_found", message: "No such route." });
    if (request.method !== "POST")
      return sendJson(response, 405, { error: "method_not_allowed", message: "Use POST." });
    // A runner runs shell commands for whoever may call it: with a token set, only the Worker may. A JSON content
    // type is required too, which a web page cannot send cross-site without a preflight.
    if (config.token !== undefined && !tokenMatches(request.headers.authorization, config.token)) {
      return sendJson(response, 401, { error: "unauthorized", message: "Missing or wrong bearer token." });
    }
    if (!/^application\/json(;|$)/i.test(request.headers["content-type"] ?? "")) {
      return sendJson(response, 415, {
        error: "unsupported_media_type",
        message: "Send the payload as application/json.",
      });
    }
    if (shuttingDown)
      return sendJson(response, 503, { error: "shutting_down", message: "The runner is shutting down." });

    const body = await readBody(request);
    if (body === "too_large") {
      response.setHeader("connection", "close");
      return sendJson(response, 413, {
        error: "payload_too_large",
        message: `The body is over ${MAX_BODY_BYTES} bytes.`,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return sendJson(response, 400, { error: "invalid_json", message: "The body is not JSON." });
    }
    const parsed = adapterPayloadSchema.safeParse(json);
    if (!parsed.success) {
      const message = parsed.error.issues
        .slice(0, 10)
        .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(body)"}: ${issue.message}`)
        .join("; ");
      return sendJson(response, 400, { error: "invalid_request", message });
    }
    if (shuttingDown)
      return sendJson(response, 503, { error: "shutting_down", message: "The runner is shutting down." });
    const payload = parsed.data;
    // A run whose answer is out may still be closing its CLI (it finishes writing the session); the next turn of
    // the chat waits for that rather than being refused. A run still producing events is a real conflict.
    // A client that just gave up and retried races its own disconnect, hence a short grace before the 409.
    for (let existing = runs.get(payload.chatKey); existing; existing = runs.get(payload.chatKey)) {
      if (!existing.ended() && !(await settlesWithin(existing.endedPromise, BUSY_GRACE_MS))) {
        return sendJson(response, 409, {
          error: "busy",
          message: `A run for ${payload.chatKey} is already in progress.`,
        });
      }
      await existing.done;
    }
    if (shuttingDown)
      return sendJson(response, 503, { error: "shutting_down", message: "The runner is shutting down." });
    if (!response.socket || response.socket.destroyed) return; // the client left while it waited
    startRun(payload, response);
  }

  function startRun(payload: AdapterPayload, response: http.ServerResponse): void {
    const started = Date.now();
    const controller = new AbortController();
    let ended = false;
    let markEnded = (): void => undefined;
    const endedPromise = new Promise<void>((resolve) => (markEnded = resolve));
    const end = (): void => {
      ended = true;
      markEnded();
    };
    const write = (event: AgentEvent): void => {
      if (ended || response.destroyed) return;
      response.write(`${JSON.stringify(event)}\n`);
      if (event.type === "result" || event.type === "error") {
        end();
        response.end();
      }
    };

    response.writeHead(200, {
      "content-type": "application/x-ndjson",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    response.flushHeaders();
    response.socket?.setNoDelay(true);
    // The client went away before the end: nobody reads the answer any more, so the query stops.
    response.on("close", () => {
      if (ended) return;
      end();
      controller.abort("the client disconnected");
    });

    log(
      `[runner] run start chat=${payload.chatKey} resume=${payload.sessionId ? "yes" : "no"} tools=${payload.tools.length}`,
    );
    const run: ActiveRun = {
      chatKey: payload.chatKey,
      controller,
      finish: write,
      ended: () => ended,
      endedPromise,
      done: Promise.resolve(),
    };
    runs.set(payload.chatKey, run);
    run.done = runAgent(payload, {
      workspaceRoot: config.workspaceRoot,
      signal: controller.signal,
      emit: write,
      env: config.env,
    })
      .then(
        (last) => {
          const outcome = last.type === "result" ? "result" : `error:${last.classification}`;
          log(`[runner] run end chat=${payload.chatKey} outcome=${outcome} duration=${Date.now() - started}ms`);
        },
        (error: unknown) => {
          // runAgent does not throw; this is a last resort so that the stream still ends properly.
          write({ type: "error", classification: "internal", retryable: true, message: "the runner failed" });
          log(
            `[runner] run end chat=${payload.chatKey} outcome=crash duration=${Date.now() - started}ms ${redact(String(error))}`,
          );
        },
      )
      .finally(() => {
        if (runs.get(payload.chatKey) === run) runs.delete(payload.chatKey);
        if (!ended) {
          end();
          response.end();
        }
      });
  }

  async function shutdown(): Promise<void> {
    if (shuttingDown) return;
    shuttingDown = true;
    server.close();
    const active = [...runs.values()];
    log(`[runner] shutting down, cancelling ${active.length} run(s)`);
    for (const run of active) {
      run.finish({
        type: "error",
        classification: "cancelled",
        retryable: true,
        message: "the runner is shutting down",
      });
      run.controller.abort("the runner is shutting down");
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled(active.map((run) => run.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS))),
    ]);
    if (timer !== undefined) clearTimeout(timer);
    server.closeAllConnections();
  }

  return { server, shutdown };
}

/**
 * The body as text, or `too_large` past the limit. The rest of a too large body is read and dropped so that the
 * client gets to read the 413, up to a point: far beyond the limit the connection is dropped instead.
 */
async function readBody(request: http.IncomingMessage): Promise<string | "too_large"> {
  const declared = Number(request.headers["content-length"]);
  let size = 0;
  let tooLarge = Number.isFinite(declared) && declared > MAX_BODY_BYTES;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    if (size > 8 * MAX_BODY_BYTES) break; // leaving the loop destroys the request and its socket
    if (!tooLarge) chunks.push(buffer);
  }
  return tooLarge ? "too_large" : Buffer.concat(chunks).toString("utf8");
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function sendJson(response: http.ServerResponse, status: number, body: { error: string; message: string }): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1] ?? "";
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}
