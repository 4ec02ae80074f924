import type { EventSourceMessage } from "eventsource-parser";
import type { ToolCall } from "../../protocol/messages.ts";
import { ProviderError } from "../errors.ts";
import type { ReadOfStream } from "../server-sent-events.ts";
import type { ModelResponse } from "../types.ts";
import { argumentsText, neutralResponse, type WorkersAiUsage } from "./read-workers-ai-output.ts";

/** A piece of a streamed tool call, in either format: Workers AI's own (`name`, `arguments`) or OpenAI's. */
interface CallPiece {
  index?: number | null;
  id?: string | null;
  name?: string | null;
  arguments?: unknown;
  function?: { name?: string | null; arguments?: unknown } | null;
}

/** One event of the binding's stream, in either format. */
interface StreamChunk {
  response?: unknown;
  tool_calls?: CallPiece[] | null;
  usage?: WorkersAiUsage;
  finish_reason?: string | null;
  choices?: { delta?: { content?: unknown; tool_calls?: CallPiece[] | null }; finish_reason?: string | null }[];
}

/**
 * The binding's streamed answer (`env.AI.run` with `stream: true`: a body of server-sent events) as its events arrive.
 * Workers AI's own format sends `{ response: "<text>" }` events, the usage in the last one, then `[DONE]`
 * (developers.cloudflare.com/workers-ai/features/streaming/); the newer models send OpenAI's chunks. Tool calls come
 * in pieces by index, closed by a piece with no id, name or arguments, which is skipped.
 */
export class StreamedBindingAnswer {
  private text = "";
  private usage: WorkersAiUsage;
  private finishReason: string | undefined;
  private readonly calls = new Map<number, ToolCall>();
  /** `[DONE]` came, or a chunk said why the answer ended: it is whole. */
  finished = false;

  constructor(private readonly maxTokens: number) {}

  read(events: readonly EventSourceMessage[]): ReadOfStream {
    let text = "";
    for (const event of events) {
      if (event.data === "[DONE]") {
        this.finished = true;
        return { text, ended: true };
      }
      let chunk: StreamChunk;
      try {
        chunk = JSON.parse(event.data) as StreamChunk;
      } catch {
        return {
          text,
          failure: new ProviderError("transport", "Workers AI: the stream sent an event that is not JSON"),
        };
      }
      text += this.apply(chunk);
    }
    return { text };
  }

  response(): ModelResponse {
    const prefix = `call_${crypto.randomUUID().slice(0, 8)}`;
    const toolCalls = [...this.calls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([index, call]) => ({ ...call, id: call.id || `${prefix}_${index}` }));
    return neutralResponse(this.text, toolCalls, this.usage, this.finishReason, this.maxTokens);
  }

  private apply(chunk: StreamChunk): string {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    const finish = choice?.finish_reason ?? chunk.finish_reason;
    if (finish) {
      this.finishReason = finish;
      this.finished = true;
    }
    for (const piece of [...(chunk.tool_calls ?? []), ...(choice?.delta?.tool_calls ?? [])]) this.addPiece(piece);
    const content = choice?.delta?.content ?? chunk.response;
    const added = typeof content === "string" ? content : "";
    this.text += added;
    return added;
  }

  private addPiece(piece: CallPiece): void {
    const name = piece.function?.name ?? piece.name;
    const args = piece.function?.arguments ?? piece.arguments;
    if (!piece.id && !name && (args === undefined || args === null || args === "")) return;
    const index = typeof piece.index === "number" ? piece.index : this.calls.size;
    const call = this.calls.get(index) ?? { id: "", name: "", arguments: "" };
    if (piece.id) call.id = piece.id;
    if (name) call.name += name;
    if (args !== undefined && args !== null) call.arguments += argumentsText(args);
    this.calls.set(index, call);
  }
}
