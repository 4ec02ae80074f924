import { describe, expect, it } from "vitest";
import type { ApiCall as ApiCallFn } from "../../../src/telegram/bot-api.ts";
import { plainFallbackTransformer, withPlainFallback } from "../../../src/telegram/plain-fallback.ts";

type Call = { method: string; payload: Record<string, unknown> };

/** The API below the transformer: refuses formatted text as Telegram does when it cannot parse it. */
function telegramBelow(refusal = 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0') {
  const calls: Call[] = [];
  const previous = (async (method: string, payload: Record<string, unknown>) => {
    calls.push({ method, payload: { ...payload } });
    if ("parse_mode" in payload) return { ok: false, error_code: 400, description: refusal };
    return { ok: true, result: { message_id: 7 } };
  }) as unknown as ApiCallFn;
  return { calls, previous };
}

describe("plainFallbackTransformer", () => {
  it("sends formatted text Telegram cannot parse again as its plain fallback, without the parse mode", async () => {
    const { calls, previous } = telegramBelow();
    const payload = withPlainFallback({ chat_id: 1, text: "<x>bold</x>", parse_mode: "HTML" as const }, "**bold**");
    const result = await plainFallbackTransformer()(previous, "sendMessage", payload);
    expect(result).toEqual({ ok: true, result: { message_id: 7 } });
    expect(calls.map((call) => call.payload.text)).toEqual(["<x>bold</x>", "**bold**"]);
    expect(calls[1]!.payload.parse_mode).toBeUndefined();
    // The fallback rides on a symbol: Telegram never sees it.
    expect(JSON.stringify(calls[1]!.payload)).toBe('{"chat_id":1,"text":"**bold**"}');
  });

  it("falls back in a caption too", async () => {
    const { calls, previous } = telegramBelow();
    const payload = withPlainFallback(
      { chat_id: 1, photo: "id", caption: "<x>", parse_mode: "HTML" as const },
      "plain",
    );
    await plainFallbackTransformer()(previous, "sendPhoto", payload);
    expect(calls[1]!.payload).toMatchObject({ caption: "plain" });
  });

  it("passes other refusals, and calls without a fallback, through untouched", async () => {
    const other = telegramBelow("Bad Request: chat not found");
    const refused = await plainFallbackTransformer()(
      other.previous,
      "sendMessage",
      withPlainFallback({ chat_id: 1, text: "<b>x</b>", parse_mode: "HTML" as const }, "x"),
    );
    expect(refused).toMatchObject({ ok: false, description: "Bad Request: chat not found" });
    expect(other.calls).toHaveLength(1);

    const bare = telegramBelow();
    const unparsed = await plainFallbackTransformer()(bare.previous, "sendMessage", {
      chat_id: 1,
      text: "<x>",
      parse_mode: "HTML" as const,
    });
    expect(unparsed.ok).toBe(false);
    expect(bare.calls).toHaveLength(1);
  });
});
