import type { AgentRunner } from "../config/settings.ts";
import { errorText } from "../lib/errors.ts";
import { type AgentErrorEvent, type AgentEvent, agentEventSchema, BUDGET_RAN_OUT } from "../protocol/events.ts";
import { utf8Bytes } from "../protocol/json-size.ts";
import type { RunnerAgent, RunPayload } from "../protocol/run-payload.ts";
import { modelKeyOf, runKeyOf } from "../protocol/run-token.ts";
import type { AgentContainerHandle, AgentContainers, ClosedRun, ProxyUsage } from "./agent-runs.ts";
import { fitHistory } from "./fit-history.ts";
import type { AgentAdapter, AgentRunInput } from "./types.ts";

export interface ContainerAgentAdapterOptions {
  /** Which agent the runner runs for this provider. */
  agent: RunnerAgent;
  /** The chat's container, or (dev and tests) a runner started by hand. */
  runner: AgentRunner;
  /** Each chat's container, when `runner` says to use them. */
  containers: AgentContainers;
  /** How long the stream may stay silent before the run counts as dead. */
  timeoutMs: number;
}

const MAX_LINE_LENGTH = 1_000_000;
/** The runner refuses bodies over 2 MB; the oldest history goes first to stay well under. */
const MAX_PAYLOAD_BYTES = 1_500_000;

/**
 * An agent session in the chat's container (`claude-agent`: the Claude Agent SDK; `codex-agent`: the Codex CLI). The
 * input goes to the runner's `POST /run` with the agent named; the answer is NDJSON, one `AgentEvent` per line,
 * validated here. A runner that cannot be reached, answers with an error, dies mid-stream, sends a malformed line or
 * stays silent past the timeout becomes one retryable `error` event.
 */
export class ContainerAgentAdapter implements AgentAdapter {
  readonly kind = "agent";

  constructor(private readonly options: ContainerAgentAdapterOptions) {}

  async *run(input: AgentRunInput): AsyncGenerator<AgentEvent> {
    const payload: RunPayload = {
      chatKey: input.chatKey,
      agent: this.options.agent,
      model: input.model,
      systemPrompt: input.systemPrompt,
      history: fitHistory(input.history, {
        fixedBytes: utf8Bytes(input.systemPrompt + JSON.stringify([input.tools, input.skills ?? []])),
        maxBytes: MAX_PAYLOAD_BYTES,
      }),
      tools: input.tools,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      ...(input.toolCallback ? { toolCallback: input.toolCallback } : {}),
      ...(input.skills && input.skills.length > 0 ? { skills: input.skills } : {}),
    };
    const abort = new AbortController();
    // Without the reason: the runtime logs a request body cancelled with a reason of the caller's as uncaught.
    input.signal?.addEventListener("abort", () => abort.abort(), { once: true });

    // In the chat's container the run's token is also its key to the model proxy: opened here, pinned to the
    // turn's model, and closed when the run ends, so that nothing in the container can use it after.
    let proxied: ProxiedRun | undefined;
    try {
      proxied = await this.openProxiedRun(input);
    } catch (error) {
      yield this.fail("transport", `the agent container could not be prepared: ${errorText(error)}`);
      return;
    }
    try {
      yield* this.stream(payload, abort, proxied);
    } finally {
      abort.abort();
      await proxied?.close().catch(() => undefined);
    }
  }

  private async openProxiedRun(input: AgentRunInput): Promise<ProxiedRun | undefined> {
    if (this.options.runner.kind !== "container" || !input.toolCallback) return undefined;
    const stub = this.containerOf(input.chatKey);
    // Opened for the CLI's key (a digest of the token), so that the token itself never needs to be in the CLI's
    // environment, where the agent's shell could read it and call the tools route.
    const runKey = await runKeyOf(await modelKeyOf(input.toolCallback.token, input.chatKey));
    await stub.openRun(runKey, input.model, input.allowance ?? {});
    let closed: Promise<ClosedRun | undefined> | undefined;
    return { close: () => (closed ??= stub.closeRun(runKey)) };
  }

  /** The runner's events; in a container, the usage is what the model proxy measured when that is more. */
  private async *stream(
    payload: RunPayload,
    abort: AbortController,
    proxied: ProxiedRun | undefined,
  ): AsyncGenerator<AgentEvent> {
    let reported: Extract<AgentEvent, { type: "usage" }> | undefined;
    const settle = async function* (last: AgentEvent): AsyncGenerator<AgentEvent> {
      const closed = await proxied?.close().catch(() => undefined);
      const usage = largerUsage(reported, closed?.usage);
      if (usage) yield usage;
      // The proxy refused its calls once the chat's budget ran out: that is why the run ended, whatever it said.
      yield closed?.overBudget
        ? { type: "error", classification: "quota", retryable: false, message: BUDGET_RAN_OUT }
        : last;
    };
    for await (const event of this.events(payload, abort)) {
      if (event.type === "usage" && proxied) {
        reported = event;
        continue;
      }
      if (event.type === "result" || event.type === "error") {
        yield* settle(event);
        return;
      }
      yield event;
    }
  }

  private async *events(payload: RunPayload, abort: AbortController): AsyncGenerator<AgentEvent> {
    let response: Response;
    try {
      response = await this.post(payload, abort.signal);
    } catch (error) {
      yield this.fail("transport", `the agent runner could not be reached: ${errorText(error)}`);
      return;
    }
    if (!response.ok || !response.body) {
      const detail = (await response.text().catch(() => "")).slice(0, 200);
      const refused = response.status === 400 || response.status === 413;
      yield this.fail(
        refused ? "invalid_request" : "transport",
        `the agent runner answered ${response.status} ${detail}`.trim(),
      );
      return;
    }

    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const chunk = await readWithin(reader, this.options.timeoutMs);
        if (chunk === "timeout") {
          yield this.fail("timeout", `the agent sent nothing for ${Math.round(this.options.timeoutMs / 1000)} s`);
          return;
        }
        if (chunk.done) break;
        buffer += chunk.value;
        for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line === "") continue;
          const event = this.parseLine(line);
          yield event;
          if (event.type === "result" || event.type === "error") return;
        }
        if (buffer.length > MAX_LINE_LENGTH) {
          yield this.fail("transport", "the agent runner sent a line longer than 1 MB");
          return;
        }
      }
      if (buffer.trim() !== "") {
        const event = this.parseLine(buffer.trim());
        yield event;
        if (event.type === "result" || event.type === "error") return;
      }
      yield this.fail("transport", "the agent runner's stream ended without a result");
    } catch (error) {
      yield this.fail("transport", `the agent runner's stream broke: ${errorText(error)}`);
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }

  private parseLine(line: string): AgentEvent {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return this.fail("transport", "the agent runner sent a line that is not JSON");
    }
    const parsed = agentEventSchema.safeParse(json);
    return parsed.success
      ? parsed.data
      : this.fail("transport", "the agent runner sent an event this bot does not know");
  }

  /** One retryable error event (not retryable for a refused request), its message prefixed with the agent. */
  private fail(classification: AgentErrorEvent["classification"], message: string): AgentErrorEvent {
    return {
      type: "error",
      classification,
      retryable: classification !== "invalid_request",
      message: `${this.options.agent}: ${message}`,
    };
  }

  private async post(payload: RunPayload, signal: AbortSignal): Promise<Response> {
    const runner = this.options.runner;
    const init: RequestInit = {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(runner.kind === "url" && runner.token ? { authorization: `Bearer ${runner.token}` } : {}),
      },
      body: JSON.stringify(payload),
      signal,
    };
    if (runner.kind === "url") return fetch(`${runner.url}/run`, init);
    return this.containerOf(payload.chatKey).fetch(new Request("http://container/run", init));
  }

  private containerOf(chatKey: string): AgentContainerHandle {
    const container = this.options.containers(chatKey);
    if (!container) throw new Error("no AGENT_CONTAINER binding");
    return container;
  }
}

interface ProxiedRun {
  /** Ends the run's access to the model proxy (once) and returns what its calls cost. */
  close: () => Promise<ClosedRun | undefined>;
}

/**
 * The usage to record: the runner's report, or the proxy's when the proxy saw more (calls the SDK's result does not
 * count, or a run that ended without one). Per field, the larger.
 */
export function largerUsage(
  reported: Extract<AgentEvent, { type: "usage" }> | undefined,
  metered: ProxyUsage | undefined,
): Extract<AgentEvent, { type: "usage" }> | undefined {
  if (!metered || metered.calls === 0) return reported;
  const cacheRead = Math.max(reported?.cacheReadTokens ?? 0, metered.cacheReadTokens);
  const cacheWrite = Math.max(reported?.cacheWriteTokens ?? 0, metered.cacheWriteTokens);
  return {
    type: "usage",
    // Like the runner's report, input counts cached tokens too.
    inputTokens: Math.max(
      reported?.inputTokens ?? 0,
      metered.inputTokens + metered.cacheReadTokens + metered.cacheWriteTokens,
    ),
    outputTokens: Math.max(reported?.outputTokens ?? 0, metered.outputTokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

async function readWithin(
  reader: ReadableStreamDefaultReader<string>,
  timeoutMs: number,
): Promise<ReadableStreamReadResult<string> | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const read = reader.read();
  // When the timeout wins, the read rejects later as the stream is torn down; that is expected, not unhandled.
  read.catch(() => undefined);
  try {
    return await Promise.race([read, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
