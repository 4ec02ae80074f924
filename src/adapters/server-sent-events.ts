import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";

/** An event larger than this (1 MiB) ends the stream as an error rather than growing the buffer without end. */
const MAX_EVENT_CHARACTERS = 1 << 20;
/** Reads of what follows a finished answer (see `finish`) before the rest is cancelled. */
const READS_AFTER_FINISH = 4;

/**
 * What a model adapter made of one read's events: the text they added (passed on as one delta), and a failure that
 * came after it (an `error` event), or that the answer ended there.
 */
export interface ReadOfStream {
  text: string;
  failure?: unknown;
  ended?: boolean;
}

/**
 * A `text/event-stream` body, read by its reader and parsed by `eventsource-parser` (the parser vercel/ai uses), with
 * no stream class, line decoder or tracing of an SDK in between (the Anthropic SDK's came with its whole client).
 *
 * One batch per read of the body: `next()` hands out the events that read completed. A model's tokens can come faster
 * than a busy isolate reads them, so the adapters pass a read's events on as one. It is a plain object the adapter's
 * own loop awaits, not an async generator: a generator's every step costs several turns of the microtask queue, once
 * per read of every answer (reading the stream was 10 % of a plain turn's CPU through a generator, 7 % this way, most
 * of it now the runtime's own cost of each read). Whoever reads it calls `close()` when done.
 */
export class EventStreamBody {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private parsed: EventSourceMessage[] = [];
  private ended: boolean;

  constructor(
    response: Response,
    private readonly signal?: AbortSignal,
  ) {
    this.reader = response.body?.getReader();
    this.ended = this.reader === undefined;
    this.parser = createParser({
      onEvent: (event) => this.parsed.push(event),
      maxBufferSize: MAX_EVENT_CHARACTERS,
    });
  }

  /** The events the body's next read completed (none when it completed none), or undefined once the body has ended. */
  async next(): Promise<readonly EventSourceMessage[] | undefined> {
    if (this.ended || this.reader === undefined) return undefined;
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await this.reader.read();
    } catch (error) {
      // An aborted fetch fails the body with the signal's reason, which need not be an AbortError.
      if (this.signal?.aborted) throw new DOMException("The model call was cancelled", "AbortError");
      throw error;
    }
    this.ended = read.done;
    this.parser.feed(read.done ? this.decoder.decode() : this.decoder.decode(read.value, { stream: true }));
    const ready = this.parsed;
    this.parsed = [];
    return ready;
  }

  /**
   * The answer is whole (`[DONE]`) and nothing after it is wanted: what is left of the body, normally only its end, is
   * read in the background instead of cancelled (cancelling a fetch's body cost the runtime four times a read, and
   * about 2 % of a plain turn's CPU). A server that goes on sending anyway is cancelled after a few reads.
   */
  finish(): void {
    const reader = this.reader;
    if (this.ended || reader === undefined) return;
    this.ended = true;
    void (async () => {
      for (let reads = 0; reads < READS_AFTER_FINISH; reads++) if ((await reader.read()).done) return;
      await reader.cancel();
    })().catch(() => undefined);
  }

  /** Stops reading: a body not read to its end is cancelled (one read to its end has nothing to cancel). */
  async close(): Promise<void> {
    if (this.ended || this.reader === undefined) return;
    this.ended = true;
    await this.reader.cancel().catch(() => undefined);
  }
}
