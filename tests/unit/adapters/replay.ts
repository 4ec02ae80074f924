import type { ModelAdapter, ModelRequest, ModelStreamPart } from "../../../src/adapters/types.ts";
import { type RecordedFormat, recordedBody, recordedLines } from "../../fakes/recorded-events.ts";
import { recordedText } from "../../fakes/recorded-fixtures.ts";

/** A plain question, the request every replayed call is made with. */
export const QUESTION: ModelRequest = {
  model: "recorded",
  system: "You are a test.",
  messages: [{ role: "user", content: "hello" }],
  tools: [],
};

/** A `fetch` that answers every request with a recorded stream, framed as its API frames it. */
export async function fetchReplaying(name: string, format: RecordedFormat): Promise<typeof fetch> {
  const lines = recordedLines(await recordedText(name));
  return async () => new Response(recordedBody(lines, format), { headers: { "content-type": "text/event-stream" } });
}

/** A `fetch` that answers every request with a recorded whole answer (`.json`). */
export async function fetchAnswering(name: string): Promise<typeof fetch> {
  const text = await recordedText(name);
  return async () => new Response(text, { headers: { "content-type": "application/json" } });
}

/** Every part of one streamed call: the text deltas joined, and the response. */
export async function streamedCall(adapter: ModelAdapter): Promise<{ text: string; response: ModelStreamPart }> {
  let text = "";
  let response: ModelStreamPart | undefined;
  for await (const part of adapter.stream(QUESTION)) {
    if (part.type === "text_delta") text += part.text;
    else response = part;
  }
  if (!response) throw new Error("the stream gave no response");
  return { text, response };
}
