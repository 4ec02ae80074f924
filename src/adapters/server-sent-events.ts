import { createParser, type EventSourceMessage } from "eventsource-parser";

/** An event larger than this (1 MiB) ends the stream as an error rather than growing the buffer without end. */
const MAX_EVENT_CHARACTERS = 1 << 20;

/**
 * The events of a `text/event-stream` body, parsed by `eventsource-parser` (the parser vercel/ai uses) fed straight
 * from the body's reader, with no stream class, line decoder or tracing of an SDK in between (the Anthropic SDK's
 * came with its whole client). Leaving the loop early cancels the body.
 */
export async function* serverSentEvents(response: Response, signal?: AbortSignal): AsyncGenerator<EventSourceMessage> {
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
      const { done, value } = await readOrAbort(reader, signal);
      ended = done;
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      const ready = parsed;
      parsed = [];
      yield* ready;
      if (done) return;
    }
  } finally {
    // A body read to its end has nothing to cancel (cancelling it anyway was a seventieth of a plain turn's CPU).
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

async function readOrAbort(reader: ReadableStreamDefaultReader<Uint8Array>, signal: AbortSignal | undefined) {
  try {
    return await reader.read();
  } catch (error) {
    // An aborted fetch fails the body with the signal's reason, which need not be an AbortError.
    if (signal?.aborted) throw new DOMException("The model call was cancelled", "AbortError");
    throw error;
  }
}
