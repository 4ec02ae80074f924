import type { EventSourceMessage } from "eventsource-parser";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { ToolCall } from "../../protocol/messages.ts";
import type { ReadOfStream } from "../server-sent-events.ts";
import type { ModelResponse } from "../types.ts";
import { chunkOf } from "./chat-completions-client.ts";
import { contentText, responseOfCompletion } from "./openai-response.ts";

/** Groq's chunks carry the usage in their own member (`x_groq.usage`) rather than in `usage`. */
type Chunk = ChatCompletionChunk & { x_groq?: { usage?: CompletionUsage } };

/**
 * A streamed Chat Completions answer as its chunks arrive: the text, the refusal, the tool calls (in pieces, by index),
 * the usage and the finish reason.
 */
export class StreamedCompletion {
  private text = "";
  private refusal = "";
  private usage: CompletionUsage | undefined;
  private finishReason: string | undefined;
  private readonly calls = new Map<number, ToolCall>();
  /** A choice said why it ended: the answer is whole. */
  finished = false;

  /**
   * Takes in a read's events: the text they added (one delta, see server-sent-events.ts), and an `error` event's
   * failure after it, or that the answer ended: `[DONE]`, or its usage once it finished (nothing after is taken in).
   */
  read(events: readonly EventSourceMessage[], headers: Headers): ReadOfStream {
    let text = "";
    for (const event of events) {
      let chunk: ChatCompletionChunk | undefined;
      try {
        chunk = chunkOf(event.data, headers);
      } catch (failure) {
        return { text, failure };
      }
      if (chunk === undefined) return { text, ended: true };
      text += this.apply(chunk);
      // Its usage after its finish is an answer's last chunk: `[DONE]` and the body's end are read off the turn's way
      // (each is a read of its own, and a read waits its turn in a busy isolate).
      if (this.whole) return { text, ended: true };
    }
    return { text };
  }

  /** A choice said why it ended and the usage came: nothing the answer needs is still to come. */
  private get whole(): boolean {
    return this.finished && this.usage !== undefined;
  }

  response(): ModelResponse {
    const toolCalls = [...this.calls.entries()].sort(([left], [right]) => left - right).map(([, call]) => call);
    return responseOfCompletion({
      text: this.text,
      refusal: this.refusal,
      toolCalls,
      finishReason: this.finishReason,
      usage: this.usage,
    });
  }

  /**
   * Where a piece of a tool call goes: its `index`. A server that numbers no call (Mistral) sends each one whole, with
   * its id: a new id is a new call, and a piece without either continues the last one.
   */
  private indexOf(piece: { index?: number; id?: string }): number {
    if (typeof piece.index === "number") return piece.index;
    const calls = [...this.calls.entries()];
    const same = calls.find(([, call]) => piece.id !== undefined && call.id === piece.id);
    if (same) return same[0];
    const last = calls.at(-1)?.[0] ?? -1;
    return piece.id ? last + 1 : Math.max(last, 0);
  }

  /** Takes one chunk in; returns the text it added. */
  private apply(chunk: Chunk): string {
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) this.usage = usage;
    const choice = chunk.choices?.[0];
    if (!choice) return "";
    if (choice.finish_reason) {
      this.finished = true;
      this.finishReason = choice.finish_reason;
    }
    const delta = choice.delta;
    if (delta?.refusal) this.refusal += delta.refusal;
    for (const piece of delta?.tool_calls ?? []) {
      const index = this.indexOf(piece);
      const call = this.calls.get(index) ?? { id: "", name: "", arguments: "" };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
      this.calls.set(index, call);
    }
    const added = contentText(delta?.content);
    this.text += added;
    return added;
  }
}
