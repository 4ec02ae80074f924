import { type ToolOutcome, toolOutcomeSchema } from "../src/protocol/run-payload.ts";

/** How long one of the bot's tools may take before the agent gets an error result instead. */
export const TOOL_CALL_TIMEOUT_MS = 60_000;

/** Where a run's tool calls go back to the Worker, and the run's token that opens it. */
export interface ToolCallback {
  url: string;
  token: string;
}

/** A tool call's answer as MCP shapes it: text content, and whether it is an error. */
export type ToolAnswer = { content: Array<{ type: "text"; text: string }>; isError: boolean };

/**
 * One call of the bot's tools, sent back to the Worker: `POST toolCallback.url` with the run's bearer token and
 * `{ name, arguments }` (the arguments as JSON text, as every adapter passes them); the Worker runs the tool in the
 * chat's own context and answers `{ content, isError }`. A failure never throws: it becomes an error result the model
 * can read. Both agents' MCP bridges use it (the Claude SDK's in-process server, Codex's loopback one).
 */
export async function callWorkerTool(
  callback: ToolCallback,
  name: string,
  args: unknown,
  options: { timeoutMs: number; signals?: ReadonlyArray<AbortSignal | undefined> },
): Promise<ToolAnswer> {
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signals ?? []).filter((s) => s !== undefined)];
  let response: Response;
  try {
    response = await fetch(callback.url, {
      method: "POST",
      headers: { authorization: `Bearer ${callback.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name, arguments: JSON.stringify(args ?? {}) }),
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    return failed(
      timedOut
        ? `The tool ${name} did not answer within ${Math.round(options.timeoutMs / 1000)} s.`
        : `The tool ${name} could not be reached (${error instanceof Error ? error.message : "network error"}).`,
    );
  }
  const body = await response.text().catch(() => "");
  if (!response.ok) return failed(`The tool ${name} failed: the bot answered HTTP ${response.status}.`);
  let parsed: ToolOutcome;
  try {
    parsed = toolOutcomeSchema.parse(JSON.parse(body));
  } catch {
    return failed(`The tool ${name} failed: the bot's answer was malformed.`);
  }
  return { content: [{ type: "text", text: parsed.content }], isError: parsed.isError };
}

export function failed(text: string): ToolAnswer {
  return { content: [{ type: "text", text }], isError: true };
}
