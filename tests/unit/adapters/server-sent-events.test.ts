import { describe, expect, it, vi } from "vitest";
import { AnthropicAdapter } from "../../../src/adapters/anthropic/anthropic-adapter.ts";
import { OpenAIAdapter } from "../../../src/adapters/openai/openai-adapter.ts";
import { EventStreamBody } from "../../../src/adapters/server-sent-events.ts";
import type { ModelAdapter, ModelStreamPart } from "../../../src/adapters/types.ts";

/** A `text/event-stream` response whose body hands out exactly these pieces, one per read (and then never ends). */
function streamOf(pieces: readonly string[], { endless = false } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      if (!endless) controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

const openaiChunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const anthropicEvent = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The parts of one streamed call over a body made of `pieces`, and what it threw, if it did. */
async function parts(adapter: ModelAdapter): Promise<{ parts: ModelStreamPart[]; error?: unknown }> {
  const seen: ModelStreamPart[] = [];
  try {
    for await (const part of adapter.stream({
      model: "m",
      system: "s",
      messages: [{ role: "user", content: "hi" }],
      tools: [],
    }))
      seen.push(part);
  } catch (error) {
    return { parts: seen, error };
  }
  return { parts: seen };
}

const options = (pieces: readonly string[], body: { endless?: boolean } = {}) => ({
  apiKey: "test-key",
  baseUrl: "https://model.invalid",
  maxRetries: 0,
  timeoutMs: 5_000,
  fetch: async () => streamOf(pieces, body),
});

describe("EventStreamBody", () => {
  it("hands out one batch per read: the events that read completed, an event split across reads with the later", async () => {
    const batches: string[][] = [];
    const body = new EventStreamBody(
      streamOf(["data: 1\n\ndata: 2\n\ndata: 3\n\n", "data: 4", "\n\n: comment\n\n", "data: 5\n\n"]),
    );
    for (let events = await body.next(); events !== undefined; events = await body.next()) {
      batches.push(events.map((event) => event.data));
    }
    // The read that ended the body completed nothing; a read with half an event completes none.
    expect(batches).toEqual([["1", "2", "3"], [], ["4"], ["5"], []]);
    expect(await body.next()).toBeUndefined();
  });

  it("cancels a body closed before its end, and hands out nothing after", async () => {
    let cancelled: unknown = "not cancelled";
    const body = new EventStreamBody(
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(new TextEncoder().encode("data: more\n\n"));
          },
          cancel(reason) {
            cancelled = reason;
          },
        }),
      ),
    );
    expect((await body.next())?.map((event) => event.data)).toEqual(["more"]);
    await body.close();
    expect(cancelled).toBeUndefined();
    expect(await body.next()).toBeUndefined();
  });

  it("reads the end of a finished answer's body instead of cancelling it, and cancels a body that goes on", async () => {
    const watch = (endless: boolean) => {
      const seen = { pulls: 0, cancelled: false };
      const body = new EventStreamBody(
        new Response(
          new ReadableStream<Uint8Array>({
            // The answer's last event, then the body's end (or, endless, more and more comments).
            pull(controller) {
              seen.pulls++;
              if (seen.pulls === 1) controller.enqueue(new TextEncoder().encode("data: [DONE]\n\n"));
              else if (endless) controller.enqueue(new TextEncoder().encode(": still here\n\n"));
              else controller.close();
            },
            cancel() {
              seen.cancelled = true;
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
      );
      return { body, seen };
    };
    const ending = watch(false);
    expect((await ending.body.next())?.map((event) => event.data)).toEqual(["[DONE]"]);
    ending.body.finish();
    await ending.body.close();
    await vi.waitFor(() => expect(ending.seen.pulls).toBe(2));
    expect(ending.seen.cancelled).toBe(false);
    expect(await ending.body.next()).toBeUndefined();

    const endless = watch(true);
    await endless.body.next();
    endless.body.finish();
    await vi.waitFor(() => expect(endless.seen.cancelled).toBe(true));
    expect(endless.seen.pulls).toBeLessThanOrEqual(6);
  });

  it("says an aborted read was cancelled, whatever the body failed with", async () => {
    const abort = new AbortController();
    const body = new EventStreamBody(
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            abort.abort(new Error("gone"));
            controller.error(new Error("the connection broke"));
          },
        }),
      ),
      abort.signal,
    );
    await expect(body.next()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("has nothing to hand out for a response without a body", async () => {
    expect(await new EventStreamBody(new Response(null)).next()).toBeUndefined();
  });
});

describe("a streamed answer, read by read", () => {
  it("OpenAI: a read's text is one delta, and the text is whole", async () => {
    const adapter = new OpenAIAdapter(
      options([
        openaiChunk({ role: "assistant", content: "" }) +
          openaiChunk({ content: "Hello" }) +
          openaiChunk({ content: ", " }),
        openaiChunk({ content: "world" }) + openaiChunk({}, "stop"),
        "data: [DONE]\n\n",
      ]),
    );
    const { parts: seen, error } = await parts(adapter);
    expect(error).toBeUndefined();
    expect(seen.filter((part) => part.type === "text_delta")).toEqual([
      { type: "text_delta", text: "Hello, " },
      { type: "text_delta", text: "world" },
    ]);
    expect(seen.at(-1)).toMatchObject({ type: "response", response: { message: { content: "Hello, world" } } });
  });

  it("OpenAI: the answer is whole at its usage after its finish, whatever follows or not", async () => {
    const usage = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 4, completion_tokens: 2 } })}\n\n`;
    const adapter = new OpenAIAdapter(
      options([openaiChunk({ role: "assistant", content: "Hi" }) + openaiChunk({}, "stop"), usage], { endless: true }),
    );
    const { parts: seen, error } = await parts(adapter);
    expect(error).toBeUndefined();
    expect(seen.at(-1)).toMatchObject({
      type: "response",
      response: { message: { content: "Hi" }, finish: { kind: "stop" }, usage: { inputTokens: 4, outputTokens: 2 } },
    });
  });

  it("OpenAI: an error event after text in the same read passes the text on, then fails", async () => {
    const adapter = new OpenAIAdapter(
      options([`${openaiChunk({ content: "Half an" })}data: ${JSON.stringify({ error: { message: "boom" } })}\n\n`]),
    );
    const { parts: seen, error } = await parts(adapter);
    expect(seen).toEqual([{ type: "text_delta", text: "Half an" }]);
    expect(error).toBeInstanceOf(Error);
  });

  it("Anthropic: the answer is whole at message_stop, whether or not the body ends", async () => {
    const adapter = new AnthropicAdapter(
      options(
        [
          anthropicEvent("message_start", {
            message: {
              id: "m",
              type: "message",
              role: "assistant",
              model: "m",
              content: [],
              usage: { input_tokens: 3 },
            },
          }) +
            anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "Hi" } }) +
            anthropicEvent("content_block_stop", { index: 0 }),
          anthropicEvent("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } }) +
            anthropicEvent("message_stop", {}),
        ],
        { endless: true },
      ),
    );
    const { parts: seen, error } = await parts(adapter);
    expect(error).toBeUndefined();
    expect(seen.at(-1)).toMatchObject({
      type: "response",
      response: { message: { content: "Hi" }, finish: { kind: "stop" }, usage: { inputTokens: 3, outputTokens: 2 } },
    });
  });

  it("Anthropic: a read's text is one delta, and an error event after it fails the call classified", async () => {
    const start = anthropicEvent("message_start", {
      message: { id: "m", type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 3 } },
    });
    const block = anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    const delta = (text: string) =>
      anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
    const adapter = new AnthropicAdapter(
      options([
        start + block + delta("Hello") + anthropicEvent("ping", {}) + delta(", "),
        `${delta("world")}event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error" } })}\n\n`,
      ]),
    );
    const { parts: seen, error } = await parts(adapter);
    expect(seen).toEqual([
      { type: "text_delta", text: "Hello, " },
      { type: "text_delta", text: "world" },
    ]);
    expect(error).toMatchObject({ classification: "overloaded" });
  });
});
