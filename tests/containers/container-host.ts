import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { readBody } from "../../scripts/read-body.ts";
import { proxyModelCall } from "../../src/durable/model-proxy.ts";
import { proxyResponsesCall } from "../../src/durable/model-proxy-responses.ts";
import { type OpenRun, OpenRuns } from "../../src/durable/open-runs.ts";
import type { Env } from "../../src/env.ts";
import { modelKeyOf, runKeyOf } from "../../src/protocol/run-token.ts";

const run = promisify(execFile);

export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run("docker", args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

export interface HostOptions {
  image: string;
  /** The Worker's bot token: run tokens are verified with it, as in the Worker. */
  botToken: string;
  /** The real key: only this process holds it, never a container. */
  anthropicApiKey: string;
  anthropicBaseUrl: string;
  /** The real OpenAI key (codex-agent), and the Responses API's root (`…/v1`). */
  openaiApiKey: string;
  openaiBaseUrl: string;
  maxOutputTokens: number;
}

interface ChatContainer {
  name: string;
  runnerPort: number;
  runnerToken: string;
  runs: OpenRuns;
  /** The ledger's own Map, to tell which container a run is open in. */
  openRuns: Map<string, OpenRun>;
  running: boolean;
  starting?: Promise<void>;
}

/**
 * What Cloudflare's container platform and `AgentContainer` do around the image, for `docker run`: one container per
 * chat (started on its first request, restarted when it was stopped, as a sleeping container is woken), the same
 * environment `AgentContainer` gives it (no key; RUNNER_MODEL_PROXY=worker), the runner's bearer token added to each
 * forwarded request, the run opened in the ledger before `POST /run` and closed when its stream ends (as the adapter
 * does), and `anthropic.internal` / `openai.internal` answered by the Worker's own `proxyModelCall` /
 * `proxyResponsesCall` with the real keys.
 */
export class ContainerHost {
  readonly containers = new Map<string, ChatContainer>();
  /** How long each (re)start took until the runner answered /ping, in ms. */
  readonly coldStarts: { chatKey: string; ms: number }[] = [];
  /** Run streams that have ended (the Worker's request closed or the runner finished). */
  readonly endedRuns: string[] = [];
  /** The model key of the latest run (what its CLI presents to the model proxy). */
  lastRunToken = "";
  url = "";
  /** Where `anthropic.internal` and `openai.internal` point (one server; the Host header says which). */
  proxyUrl = "";
  private front: http.Server | undefined;
  private proxy: http.Server | undefined;
  private proxyPort = 0;
  private readonly env: Env;
  private readonly options: HostOptions;

  constructor(options: HostOptions) {
    this.options = options;
    const idFromName = (name: string) => ({ toString: () => `container:${name}` });
    // The Worker's settings and the containers' ids, as proxyModelCall reads them.
    this.env = {
      TELEGRAM_BOT_TOKEN: options.botToken,
      ANTHROPIC_API_KEY: options.anthropicApiKey,
      ANTHROPIC_BASE_URL: options.anthropicBaseUrl,
      OPENAI_API_KEY: options.openaiApiKey,
      OPENAI_BASE_URL: options.openaiBaseUrl,
      AGENT_MAX_OUTPUT_TOKENS: String(options.maxOutputTokens),
      AGENT_CONTAINER: { idFromName },
    } as unknown as Env;
  }

  async start(): Promise<this> {
    this.proxy = http.createServer((request, response) => void this.modelCall(request, response));
    this.front = http.createServer((request, response) => void this.forward(request, response));
    this.proxyPort = await listen(this.proxy);
    this.proxyUrl = `http://127.0.0.1:${this.proxyPort}`;
    this.url = `http://127.0.0.1:${await listen(this.front)}`;
    return this;
  }

  async close(): Promise<void> {
    for (const container of this.containers.values()) await docker("rm", "-f", container.name).catch(() => "");
    this.front?.closeAllConnections();
    this.proxy?.closeAllConnections();
    await Promise.all([this.front, this.proxy].map((server) => new Promise((resolve) => server?.close(resolve))));
  }

  /** The container's name for a chat, once it has one. */
  nameOf(chatKey: string): string {
    const container = this.containers.get(chatKey);
    if (!container) throw new Error(`no container for ${chatKey}`);
    return container.name;
  }

  /** As when the container went to sleep (sleepAfter) or died: the next request starts it again. */
  async stop(chatKey: string, how: "stop" | "kill"): Promise<void> {
    const container = this.containers.get(chatKey)!;
    container.running = false;
    await docker(how, container.name);
  }

  private async ensureRunning(chatKey: string): Promise<ChatContainer> {
    let container = this.containers.get(chatKey);
    if (!container) {
      const runs = new Map<string, OpenRun>();
      container = {
        name: `tea-agent-${process.pid}-${this.containers.size}`,
        runnerPort: await freePort(),
        runnerToken: crypto.randomUUID(),
        runs: new OpenRuns({
          get: async (runKey) => runs.get(runKey),
          put: async (runKey, openRun) => void runs.set(runKey, openRun),
          delete: async (runKeys) => {
            for (const runKey of runKeys) runs.delete(runKey);
          },
          all: async () => new Map(runs),
        }),
        openRuns: runs,
        running: false,
      };
      this.containers.set(chatKey, container);
    }
    if (container.running) return container;
    const chosen = container;
    chosen.starting ??= (async () => {
      const began = performance.now();
      const exists = await docker("ps", "-aq", "--filter", `name=^${chosen.name}$`);
      if (exists) await docker("start", chosen.name);
      else await docker("run", "-d", ...this.containerArguments(chosen));
      await waitForPing(chosen);
      this.coldStarts.push({ chatKey, ms: Math.round(performance.now() - began) });
      chosen.running = true;
    })().finally(() => {
      chosen.starting = undefined;
    });
    await chosen.starting;
    return chosen;
  }

  /** The environment AgentContainer gives the container, and its two internal hosts pointed at this process. */
  private containerArguments(container: ChatContainer): string[] {
    const env = {
      PORT: String(container.runnerPort),
      HOST: "127.0.0.1",
      IS_SANDBOX: "1",
      RUNNER_TOKEN: container.runnerToken,
      RUNNER_ALLOWED_HOSTS: "container,ping",
      RUNNER_MODEL_PROXY: "worker",
      ANTHROPIC_BASE_URL: `http://anthropic.internal:${this.proxyPort}`,
      OPENAI_BASE_URL: `http://openai.internal:${this.proxyPort}/v1`,
      WORKSPACE_ROOT: "/workspace",
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(this.options.maxOutputTokens),
      CLAUDE_CODE_MAX_RETRIES: "0",
      CODEX_MAX_RETRIES: "0",
    };
    return [
      "--name",
      container.name,
      // The host's network, so that the runner and the Worker under `wrangler dev` reach each other on loopback.
      "--network",
      "host",
      "--add-host",
      "anthropic.internal:127.0.0.1",
      "--add-host",
      "openai.internal:127.0.0.1",
      "--memory",
      "1g",
      ...Object.entries(env).flatMap(([name, value]) => ["-e", `${name}=${value}`]),
      this.options.image,
    ];
  }

  /** The Worker's requests to its runner (AGENT_RUNNER_URL), as AgentContainer.fetch forwards them. */
  private async forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    try {
      const raw = await readBody(request);
      const payload = raw
        ? (JSON.parse(raw) as { chatKey?: string; model?: string; toolCallback?: { token: string } })
        : {};
      const chatKey = payload.chatKey ?? "";
      const container = await this.ensureRunning(chatKey);
      // The ledger is opened for the CLI's model key, as the Worker's adapter opens it.
      const modelKey = payload.toolCallback ? await modelKeyOf(payload.toolCallback.token, chatKey) : undefined;
      const runKey = modelKey ? await runKeyOf(modelKey) : undefined;
      if (runKey && payload.model) await container.runs.open(runKey, payload.model);
      if (modelKey) this.lastRunToken = modelKey;
      const abort = new AbortController();
      response.on("close", () => abort.abort());
      const answer = await fetch(`http://127.0.0.1:${container.runnerPort}${request.url}`, {
        method: request.method ?? "POST",
        headers: {
          host: "container",
          authorization: `Bearer ${container.runnerToken}`,
          "content-type": request.headers["content-type"] ?? "application/json",
        },
        ...(raw ? { body: raw } : {}),
        signal: abort.signal,
      });
      response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
      try {
        if (answer.body) for await (const chunk of answer.body) response.write(chunk);
      } finally {
        response.end();
        if (runKey) {
          await container.runs.close(runKey);
          this.endedRuns.push(chatKey);
        }
      }
    } catch (error) {
      // A stream already under way breaks off, as the container's connection does when it dies.
      if (response.headersSent) response.destroy();
      else {
        // The detail (a docker command line, with the container's environment) stays here, out of the Worker's logs.
        console.error(`[containers] forwarding failed: ${error instanceof Error ? error.message : String(error)}`);
        response.writeHead(502, { "content-type": "text/plain" });
        response.end("the container could not be reached");
      }
    }
  }

  /** `http://anthropic.internal` and `http://openai.internal`: the Worker's outbound handlers, for the container. */
  private async modelCall(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    try {
      await this.proxied(request, response);
    } catch {
      // The CLI's connection went away mid-answer (a stopped or killed run).
      response.destroy();
    }
  }

  private async proxied(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const body = await readBody(request);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") headers.set(name, value);
    }
    const openai = (headers.get("host") ?? "").startsWith("openai.internal");
    // With the host's network the source address cannot say which container called: the one that has the run open
    // stands in for it (a token open nowhere gets a container id of none, and is refused as on Cloudflare).
    const presented =
      headers.get("x-api-key") ?? /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1] ?? "";
    const owner = await this.ownerOf(presented);
    const input = {
      request: new Request(`http://${openai ? "openai" : "anthropic"}.internal${request.url}`, {
        method: request.method ?? "POST",
        headers,
        ...(request.method === "POST" ? { body } : {}),
      }),
      env: this.env,
      containerId: owner === undefined ? "none" : `container:${owner}`,
      ledgerFor: (key: string) => this.containers.get(key)?.runs ?? new OpenRuns(emptyStore()),
    };
    const answer = openai ? await proxyResponsesCall(input) : await proxyModelCall(input);
    const outgoing: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name))
        outgoing[name] = value;
    });
    response.writeHead(answer.status, outgoing);
    if (answer.body) for await (const chunk of Readable.fromWeb(answer.body as never)) response.write(chunk);
    response.end();
  }

  /** The chat whose container has the run open (with the host network, the source address cannot tell). */
  private async ownerOf(token: string): Promise<string | undefined> {
    if (!token) return undefined;
    const runKey = await runKeyOf(token);
    for (const [chatKey, container] of this.containers) {
      if (container.openRuns.has(runKey)) return chatKey;
    }
    return undefined;
  }
}

function emptyStore() {
  return {
    get: async () => undefined,
    put: async () => undefined,
    delete: async () => undefined,
    all: async () => new Map<string, OpenRun>(),
  };
}

async function waitForPing(container: ChatContainer): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const answer = await fetch(`http://127.0.0.1:${container.runnerPort}/ping`, { headers: { host: "ping" } });
      if (answer.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${container.name} did not answer /ping within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

export async function freePort(): Promise<number> {
  const server = http.createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}
