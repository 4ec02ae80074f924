import { createParser, type EventSourceMessage } from "eventsource-parser";

/** An event larger than this (1 MiB) ends the stream as an error rather than growing the buffer without end. */
const MAX_EVENT_CHARACTERS = 1 << 20;

/**
 * The events of a `text/event-stream` body, parsed by `eventsource-parser` (the parser vercel/ai uses) fed straight
 * from the body's reader, with no stream class, line decoder or tracing of an SDK in between (the Anthropic SDK's
 * came with its whole client). Leaving the loop early cancels the body.
 *
 * One batch per read of the body: the events that read completed, never empty. A model's tokens can come faster than
 * a busy isolate reads them, and each step through a chain of async generators costs a turn of the microtask queue, so
 * the adapters pass a read's events on as one. (Reading the stream is a tenth of a plain turn's CPU, most of it the
 * runtime's cost of each read, one per event when they come one at a time.)
 */
export async function* serverSentEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<readonly EventSourceMessage[]> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let parsed: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => parsed.push(event),
    maxBufferSize: MAX_EVENT_CHARACTERS,
  });
  let ended = false;
  try {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (error) {
        // An aborted fetch fails the body with the signal's reason, which need not be an AbortError.
        if (signal?.aborted) throw new DOMException("The model call was cancelled", "AbortError");
        throw error;
      }
      ended = read.done;
      parser.feed(read.done ? decoder.decode() : decoder.decode(read.value, { stream: true }));
      if (parsed.length > 0) {
        const ready = parsed;
        parsed = [];
        yield ready;
      }
      if (read.done) return;
    }
  } finally {
    // A body read to its end has nothing to cancel (cancelling it anyway was a seventieth of a plain turn's CPU).
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}
