import { costOf } from "../budget/budget.ts";
import type { ModelPrice } from "../config/settings-lists.ts";
import { assertNever } from "../lib/errors.ts";
import type { AgentErrorEvent, AgentEvent, FinishReason } from "../protocol/events.ts";
import type { HistoryMessage } from "../protocol/messages.ts";
import type { ToolStep } from "../reply/steps-summary.ts";

/** What an event means for the person watching (and the chat's state), as the tally sees it. */
export type TallyStep =
  | { kind: "none" }
  /** More of the answer's text. */
  | { kind: "text"; text: string }
  /** A tool step to show; `starts` when a new call begins (the text before it was its preamble). */
  | { kind: "tool"; label: string; starts: boolean }
  /** The agent's session id, to resume from next time. */
  | { kind: "session"; sessionId: string }
  /** A line the adapter logged. */
  | { kind: "log"; message: string }
  /** The turn's last event: a result or an error. */
  | { kind: "done" };

/** Who made the calls: the chat's own model, or the fallback the last call was made by. */
export interface Answerer {
  provider: string;
  model: string;
}

/**
 * Folds a turn's `AgentEvent`s into what it produced: the messages to keep, tokens and their cost (each call priced
 * by the model that made it), tool calls and their steps (a person may open the list under the answer: each tool
 * with its argument, and its outcome from the tool's result message), and the result or the error. `apply` says what each event means for the
 * display; the tally itself shows and stores nothing.
 */
export class Tally {
  readonly produced: HistoryMessage[] = [];
  readonly usage = { inputTokens: 0, outputTokens: 0 };
  costUsd = 0;
  /** Whether any call's model has a price (else the turn's cost is unknown). */
  priced = false;
  toolCalls = 0;
  readonly steps: ToolStep[] = [];
  result: string | undefined;
  /** How the answer ended, when the adapter said (see answer-ending.ts for what the person is told). */
  finish: FinishReason | undefined;
  error: AgentErrorEvent | undefined;
  answeredBy: Answerer;

  constructor(
    chatModel: Answerer,
    private readonly priceOf: (model: string) => ModelPrice | undefined,
  ) {
    this.answeredBy = chatModel;
  }

  get finished(): boolean {
    return this.result !== undefined || this.error !== undefined;
  }

  apply(event: AgentEvent): TallyStep {
    switch (event.type) {
      case "session_init":
        return { kind: "session", sessionId: event.sessionId };
      case "text_delta":
        return { kind: "text", text: event.text };
      case "tool_start":
        this.toolCalls++;
        this.steps.push({ tool: event.toolName, argument: event.preview });
        return { kind: "tool", label: `⚙️ ${event.toolName}${event.preview ? `: ${event.preview}` : ""}`, starts: true };
      case "tool_progress": {
        const seconds = event.elapsedSeconds ? ` (${Math.round(event.elapsedSeconds)} s)` : "";
        return { kind: "tool", label: `⚙️ ${event.toolName}${seconds}`, starts: false };
      }
      case "adapter_stderr":
        return { kind: "log", message: event.message };
      case "message":
        this.produced.push(event.message);
        if (event.message.role === "tool") this.noteOutcome(event.message.toolName, event.message);
        return { kind: "none" };
      case "usage": {
        if (event.provider !== undefined && event.model !== undefined) {
          this.answeredBy = { provider: event.provider, model: event.model };
        }
        const price = this.priceOf(this.answeredBy.model);
        this.usage.inputTokens += event.inputTokens;
        this.usage.outputTokens += event.outputTokens;
        this.costUsd += costOf(event, price);
        this.priced ||= price !== undefined;
        return { kind: "none" };
      }
      case "finish":
        this.finish = event.reason;
        return { kind: "none" };
      case "result":
        this.result = event.text;
        return { kind: "done" };
      case "error":
        this.error = event;
        return { kind: "done" };
      default:
        return assertNever(event, "event");
    }
  }

  /**
   * The turn starts its model call over (a message joined before anything was shown): what the dropped call produced
   * and how it ended are forgotten; its tokens and cost stay counted.
   */
  restart(): void {
    this.produced.length = 0;
    this.result = undefined;
    this.finish = undefined;
    this.error = undefined;
  }

  /** Every token counted so far, in and out (whether a call reported its usage). */
  get tokens(): number {
    return this.usage.inputTokens + this.usage.outputTokens;
  }

  /** A tool's result: the outcome of the first step of that tool still without one. */
  private noteOutcome(tool: string, result: { content: string; isError?: boolean | undefined }): void {
    const step = this.steps.find((candidate) => candidate.tool === tool && candidate.outcome === undefined);
    if (step) step.outcome = { ok: result.isError !== true, text: result.content.slice(0, 500) };
  }

  /** The turn's cost so far, or null when no call's model has a price. */
  get cost(): number | null {
    return this.priced ? this.costUsd : null;
  }
}
