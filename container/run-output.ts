import { type AgentEvent, MAX_DELTA_LENGTH } from "../src/protocol/events.ts";
import type { Classified } from "./classify.ts";
import { MAX_STDERR_LINE, redact, truncate } from "./redact.ts";

export type TerminalEvent = Extract<AgentEvent, { type: "result" | "error" }>;

/** The most `adapter_stderr` events one run sends; one more says that the rest was left out. */
const MAX_STDERR_EVENTS = 200;

/**
 * One run's outgoing events, whichever agent runs: exactly one `result` or `error`, last (anything after it is
 * dropped); text that leaves the runner redacted (the run's secrets, key-looking strings); stderr lines bounded in
 * length and number; answer text in pieces the event schema accepts.
 */
export class RunOutput {
  // Plain fields, not parameter properties: the runner runs under Node's type stripping.
  private readonly sink: (event: AgentEvent) => void;
  private readonly secrets: string[];
  private last: TerminalEvent | undefined;
  private stderrEvents = 0;

  constructor(sink: (event: AgentEvent) => void, secrets: readonly string[] = []) {
    this.sink = sink;
    this.secrets = [...secrets];
  }

  /** The run's last event, once it was sent. */
  get terminal(): TerminalEvent | undefined {
    return this.last;
  }

  /** A value to redact from everything sent from now on (a per-run key, a token). */
  addSecret(secret: string): void {
    this.secrets.push(secret);
  }

  emit(event: AgentEvent): void {
    if (this.last) return;
    if (event.type === "result" || event.type === "error") this.last = event;
    this.sink(event);
  }

  fail(classified: Classified, message: string): void {
    this.emit({ type: "error", ...classified, message: truncate(this.redact(message), 2_000) });
  }

  /** The run was aborted (the client left, the runner shuts down): the signal's reason is the message. */
  cancelled(signal: AbortSignal): void {
    const reason = typeof signal.reason === "string" && signal.reason !== "" ? signal.reason : "the run was cancelled";
    this.fail({ classification: "cancelled", retryable: true }, reason);
  }

  stderrLine(message: string): void {
    this.stderrEvents++;
    if (this.stderrEvents > MAX_STDERR_EVENTS + 1) return;
    const text = this.stderrEvents > MAX_STDERR_EVENTS ? "[further stderr output left out]" : message;
    this.emit({ type: "adapter_stderr", message: truncate(this.redact(text), MAX_STDERR_LINE) });
  }

  /** A piece of the answer as it is written, redacted and split to the schema's bound. */
  textDelta(text: string): void {
    if (text === "") return;
    for (const piece of deltaPieces(this.redact(text))) this.emit({ type: "text_delta", text: piece });
  }

  redact(text: string): string {
    return redact(text, this.secrets);
  }
}

/** A delta's text in pieces the event schema accepts (a model's delta is far shorter; this is the bound). */
export function deltaPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + MAX_DELTA_LENGTH, text.length);
    // Never between the two halves of a surrogate pair.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end--;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}
