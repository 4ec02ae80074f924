import type { Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import { Hono, type MiddlewareHandler } from "hono";
import type { AgentEvent } from "../src/protocol/events.ts";
import { requireBearer, secretsEqual } from "../src/protocol/http/bearer.ts";
import { HttpError, handleError, notFound } from "../src/protocol/http/error.ts";
import { jsonBody } from "../src/protocol/http/json-body.ts";
import { type RunPayload, runPayloadSchema } from "../src/protocol/run-payload.ts";
import type { AgentSandbox } from "./agent-run.ts";
import { redact } from "./redact.ts";
import { type AgentModelAccess, runAgent } from "./run-agent.ts";
import type { TerminalEvent } from "./run-output.ts";

const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** How long a shutdown waits for the running queries to wind down before the process goes anyway. */
const SHUTDOWN_GRACE_MS = 5_000;
/** How long a second run for a busy chat waits for the first one's client to turn out gone before the 409. */
const BUSY_GRACE_MS = 1_000;

const NDJSON_HEADERS = {
  "content-type": "application/x-ndjson",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
} as const;

export interface RunnerConfig {
  workspaceRoot: string;
  /** `POST /run` wants `Authorization: Bearer <token>` (RUNNER_TOKEN). */
  token: string;
  /** Host names (no port) a request may name besides loopback ones (RUNNER_ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  /** Each agent this runner runs, and how its CLI reaches the model; a run of another agent is refused. */
  modelAccess: AgentModelAccess;
  /** Where the agents' commands run: in the container (its own boundary) or on a host (default: the CLI's sandbox). */
  sandbox?: AgentSandbox;
  /** The runner's environment, of which the CLI gets an allow list; defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** The host name of a Host header, lowercased and without its port ("[::1]:8080" → "[::1]"). */
export function hostNameOf(header: string | undefined): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/i.exec((header ?? "").trim());
  return match?.[1]?.toLowerCase();
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
  /** The Hono app the server serves (for in-process use: `app.request(...)`). */
  app: Hono;
  server: Server;
  /** Cancels every run (each stream gets a `cancelled` error), waits briefly for them, closes the server. */
  shutdown: () => Promise<void>;
}

/**
 * The agent runner's HTTP face, a Hono app on `@hono/node-server`: `GET /ping`, and `POST /run` with a run payload,
 * answered as NDJSON — one `AgentEvent` per line as it happens, the last one the only `result` or `error`. One run
 * per chatKey at a time. Refusals are the Worker's `ErrorEnvelope` (`src/http/error.ts`).
 */
export function createRunner(config: RunnerConfig): Runner {
  const log = config.log ?? ((line: string) => console.log(line));
  const runs = new Map<string, ActiveRun>();
  let shuttingDown = false;

  const refuseWhileShuttingDown = (): void => {
    if (shuttingDown) throw new HttpError(503, { code: "shutting_down", message: "The runner is shutting down." });
  };
  // A runner runs shell commands for whoever may call it: only the Worker, with the token, may. A JSON content
  // type is required too (jsonBody), which a web page cannot send cross-site without a preflight.
  const token = config.token;
  const authorize: MiddlewareHandler = requireBearer((presented) => secretsEqual(presented, token));
  // A web page that rebinds its own name to 127.0.0.1 still sends its own name as Host: refused (DNS rebinding).
  const hosts = new Set([...LOOPBACK_HOSTS, ...(config.allowedHosts ?? []).map((host) => host.toLowerCase())]);
  const checkHost: MiddlewareHandler = async (c, next) => {
    const host = hostNameOf(c.req.header("host"));
    if (host === undefined || !hosts.has(host)) {
      throw new HttpError(403, {
        code: "forbidden_host",
        message: "This runner answers only requests for its own host names.",
      });
    }
    await next();
  };

  const app = new Hono();
  app.use(checkHost);

  app.get("/ping", (c) => c.text("ok"));
  app.all("/ping", () => {
    throw new HttpError(405, { code: "method_not_allowed", message: "Use GET." });
  });

  app.post(
    "/run",
    authorize,
    async (_c, next) => {
      // Before the body is read: a runner that is going away does not take in 2 MiB first.
      refuseWhileShuttingDown();
      await next();
    },
    jsonBody(runPayloadSchema, { maxBytes: MAX_BODY_BYTES }),
    async (c) => {
      refuseWhileShuttingDown();
      const payload = c.req.valid("json");
      // Aborted by @hono/node-server when the client's connection closes before the response is finished.
      const clientGone = c.req.raw.signal;
      // A run whose answer is out may still be closing its CLI (it finishes writing the session); the next turn of
      // the chat waits for that rather than being refused. A run still producing events is a real conflict.
      // A client that just gave up and retried races its own disconnect, hence a short grace before the 409.
      for (let existing = runs.get(payload.chatKey); existing; existing = runs.get(payload.chatKey)) {
        if (!existing.ended() && !(await settlesWithin(existing.endedPromise, BUSY_GRACE_MS))) {
          throw new HttpError(409, { code: "busy", message: `A run for ${payload.chatKey} is already in progress.` });
        }
        await existing.done;
      }
      refuseWhileShuttingDown();
      // The client left while it waited: nobody would read the answer. (499: nginx's "client closed request".)
      if (clientGone.aborted) return new Response(null, { status: 499 });
      return c.body(startRun(payload, clientGone), 200, NDJSON_HEADERS);
    },
  );
  app.all("/run", () => {
    throw new HttpError(405, { code: "method_not_allowed", message: "Use POST." });
  });

  app.notFound(notFound);
  app.onError((error, c) => {
    const response = handleError(error, c, (line) => log(`[runner] ${redact(line)}`));
    // The rest of a too large body is left unread: the connection ends with the answer instead of being reused.
    if (response.status === 413) response.headers.set("connection", "close");
    return response;
  });

  /** Starts the run and returns its NDJSON body; the run stops when `clientGone` aborts or the body is cancelled. */
  function startRun(payload: RunPayload, clientGone: AbortSignal): ReadableStream<Uint8Array> {
    const started = Date.now();
    const controller = new AbortController();
    const encoder = new TextEncoder();
    let ended = false;
    let markEnded = (): void => undefined;
    const endedPromise = new Promise<void>((resolve) => (markEnded = resolve));
    let sink!: ReadableStreamDefaultController<Uint8Array>;
    const end = (): void => {
      if (ended) return;
      ended = true;
      markEnded();
      try {
        sink.close();
      } catch {
        // already cancelled by the server: the client is gone
      }
    };
    // The client went away before the end: nobody reads the answer any more, so the query stops. @hono/node-server
    // says so twice, both covered: it aborts the request's signal when the response closes unfinished, and cancels
    // the body stream it was piping into the closed response.
    const gone = (): void => {
      if (ended) return;
      end();
      controller.abort("the client disconnected");
    };
    const body = new ReadableStream<Uint8Array>({
      start(streamController) {
        sink = streamController;
      },
      cancel: gone,
    });
    const write = (event: AgentEvent): void => {
      if (ended) return;
      // Each line is handed to the response as it comes: the server writes it out at once, no buffering.
      sink.enqueue(encoder.encode(`${JSON.stringify(event)}\n`));
      if (event.type === "result" || event.type === "error") end();
    };
    clientGone.addEventListener("abort", gone, { once: true });

    log(
      `[runner] run start chat=${payload.chatKey} agent=${payload.agent ?? "claude-agent"} resume=${payload.sessionId ? "yes" : "no"} tools=${payload.tools.length}`,
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
      env: config.env ?? process.env,
      modelAccess: config.modelAccess,
      sandbox: config.sandbox ?? "host",
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
        clientGone.removeEventListener("abort", gone);
        if (runs.get(payload.chatKey) === run) runs.delete(payload.chatKey);
        end();
      });
    return body;
  }

  // createAdaptorServer makes a node:http server unless told otherwise.
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;

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

  return { app, server, shutdown };
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
