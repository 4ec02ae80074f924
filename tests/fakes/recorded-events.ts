/**
 * A recorded answer's lines (one JSON event each, as vercel/ai keeps them: see ../shared/fixtures/recorded-streams/
 * README.md) as the server-sent events its API sends. No Node or Workers imports: the fakes and the unit tests both
 * use it.
 */

/** How an API frames its stream: Chat Completions sends `data:` lines ending with `[DONE]`; the Messages and Responses
 * APIs name each event after its `type`. */
export type RecordedFormat = "chat-completions" | "anthropic" | "responses";

/** The JSON lines of a `.chunks.txt` file (blank lines left out). */
export function recordedLines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

/** The events of a recorded stream as its API sends them, one string per event. */
export function recordedEvents(lines: readonly string[], format: RecordedFormat): string[] {
  if (format === "chat-completions") return [...lines.map((line) => `data: ${line}\n\n`), "data: [DONE]\n\n"];
  return lines.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`);
}

/** A recorded stream as the body of a `text/event-stream` response, one event a read. */
export function recordedBody(lines: readonly string[], format: RecordedFormat): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const events = recordedEvents(lines, format);
  return new ReadableStream({
    start(controller) {
      for (const event of events) controller.enqueue(encoder.encode(event));
      controller.close();
    },
  });
}
