import { Container } from "@cloudflare/containers";
import type { AgentContainerHandle, ClosedRun, ProxyUsage, RunAllowance } from "../adapters/agent-runs.ts";
import { settingsOf } from "../config/loaded-settings.ts";
import type { Env } from "../env.ts";
import type { Admission, CallHold } from "./model-proxy-admission.ts";
import { type OpenRun, type OpenRunStore, OpenRuns } from "./open-runs.ts";

/** Plain-HTTP hosts the runner is pointed at; they exist only inside the container and end in the handlers below. */
export const ANTHROPIC_PROXY_HOST = "anthropic.internal";
export const OPENAI_PROXY_HOST = "openai.internal";
const RUNNER_TOKEN_KEY = "runner-token";

/**
 * One container per chat running `container/` (the agent runner: the Claude Agent SDK and the Codex CLI). No API key
 * enters it: the runner talks plain HTTP to `anthropic.internal` and `openai.internal`, and outbound handlers
 * forward the calls of the running turn (its token is the CLI's API key) to the real APIs with the keys added. Tool
 * calls go to
 * `worker.internal` and are served by the chat's object. The runner wants a bearer token of its own, a random one
 * per container kept in this object's storage, which this object adds to every request it forwards. The outbound
 * handlers themselves are routes, so the entry point (src/worker.ts) registers them.
 */
export class AgentContainer extends Container<Env> implements AgentContainerHandle {
  override defaultPort = 8080;
  /**
   * A sleeping container costs nothing; an awake one is billed for its memory and disk (and CPU while it works).
   * Ten idle minutes keep a conversation's follow-ups warm, after which the next message pays a cold start.
   */
  override sleepAfter = "10m";
  private runnerToken = "";

  constructor(ctx: ConstructorParameters<typeof Container>[0], env: Env) {
    super(ctx, env);
    const settings = settingsOf(env);
    const maxOutputTokens = String(settings.agentMaxOutputTokens);
    // Egress is an allow list: the handlers below always answer; the rest of the network only as configured.
    this.enableInternet = settings.agentEgress.kind === "internet";
    this.allowedHosts = settings.agentEgress.kind === "hosts" ? [...settings.agentEgress.hosts] : [];
    void ctx.blockConcurrencyWhile(async () => {
      let token = await ctx.storage.get<string>(RUNNER_TOKEN_KEY);
      if (token === undefined) {
        token = randomToken();
        await ctx.storage.put(RUNNER_TOKEN_KEY, token);
      }
      this.runnerToken = token;
      this.envVars = {
        PORT: "8080",
        IS_SANDBOX: "1",
        RUNNER_TOKEN: token,
        // The Durable Object reaches the runner as http://container/… and pings it as http://ping.
        RUNNER_ALLOWED_HOSTS: "container,ping",
        // No key in here: the CLI presents each run's token to the Worker's proxy.
        RUNNER_MODEL_PROXY: "worker",
        ANTHROPIC_BASE_URL: `http://${ANTHROPIC_PROXY_HOST}`,
        OPENAI_BASE_URL: `http://${OPENAI_PROXY_HOST}/v1`,
        WORKSPACE_ROOT: "/workspace",
        CLAUDE_CODE_MAX_OUTPUT_TOKENS: maxOutputTokens,
        // The CLI retries overloaded/5xx answers itself (about ten times by default); keep a stuck turn short.
        CLAUDE_CODE_MAX_RETRIES: "3",
      };
    });
  }

  override async fetch(request: Request): Promise<Response> {
    const headers = new Headers(request.headers);
    headers.set("authorization", `Bearer ${this.runnerToken}`);
    return super.fetch(new Request(request, { headers }));
  }

  private runs(): OpenRuns {
    return new OpenRuns(storageOpenRuns(this.ctx.storage));
  }

  /** Before a run starts: its model calls may go through the proxy, pinned to `model`, until `closeRun`. */
  async openRun(runKey: string, model: string, allowance: RunAllowance): Promise<void> {
    await this.runs().open(runKey, model, allowance);
  }

  async admitModelCall(runKey: string, hold?: CallHold): Promise<Admission> {
    return this.runs().admit(runKey, hold);
  }

  async recordUsage(runKey: string, usage: ProxyUsage, holdId?: string): Promise<void> {
    await this.runs().record(runKey, usage, holdId);
  }

  /** The run is over: its token opens nothing any more. Returns what its model calls cost, as the proxy saw it. */
  async closeRun(runKey: string): Promise<ClosedRun | undefined> {
    return this.runs().close(runKey);
  }
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Open runs in a Durable Object's storage, under a prefix of their own. */
function storageOpenRuns(storage: DurableObjectStorage): OpenRunStore {
  const prefix = "proxy-run:";
  return {
    get: (runKey) => storage.get<OpenRun>(`${prefix}${runKey}`),
    put: (runKey, run) => storage.put(`${prefix}${runKey}`, run),
    delete: async (runKeys) => {
      await storage.delete(runKeys.map((runKey) => `${prefix}${runKey}`));
    },
    all: async () => {
      const stored = await storage.list<OpenRun>({ prefix });
      return new Map([...stored].map(([key, run]) => [key.slice(prefix.length), run]));
    },
  };
}
