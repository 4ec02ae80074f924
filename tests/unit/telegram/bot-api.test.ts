import { afterEach, describe, expect, it, vi } from "vitest";
import { BotApi, BotApiError, BotApiHttpError, InputFile } from "../../../src/telegram/bot-api.ts";

interface Seen {
  url: string;
  contentType: string | null;
  body: string | FormData;
}

function serve(answer: (seen: Seen) => Response | Promise<Response>): Seen[] {
  const seen: Seen[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    const request = {
      url,
      contentType: new Headers(init.headers).get("content-type"),
      body: init.body as string | FormData,
    };
    seen.push(request);
    return answer(request);
  });
  return seen;
}

const ok = (result: unknown) => Response.json({ ok: true, result });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the Bot API client", () => {
  it("posts a method's payload as JSON to <root>/bot<token>/<method> and returns its result", async () => {
    const seen = serve(() => ok({ message_id: 7 }));
    const api = new BotApi("123:abc", { apiRoot: "http://bot.test", timeoutSeconds: 5 });
    const sent = await api.sendMessage(42, "hi", { parse_mode: "HTML" });
    expect(sent).toEqual({ message_id: 7 });
    expect(seen[0]).toEqual({
      url: "http://bot.test/bot123:abc/sendMessage",
      contentType: "application/json",
      body: JSON.stringify({ chat_id: 42, text: "hi", parse_mode: "HTML" }),
    });
  });

  it("uploads a file as multipart, the other fields as text or JSON", async () => {
    const seen = serve(() => ok({ message_id: 8 }));
    const api = new BotApi("t", { apiRoot: "http://bot.test", timeoutSeconds: 5 });
    await api.sendPhoto(42, new InputFile(new Uint8Array([1, 2, 3]), "a.png"), { reply_parameters: { message_id: 3 } });
    const form = seen[0]!.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    const photo = form.get("photo") as File;
    expect([photo.name, photo.size]).toEqual(["a.png", 3]);
    expect(form.get("chat_id")).toBe("42");
    expect(form.get("reply_parameters")).toBe('{"message_id":3}');
  });

  it("sends an edit's text or rich message under its own field", async () => {
    const seen = serve(() => ok(true));
    const api = new BotApi("t", { apiRoot: "http://bot.test", timeoutSeconds: 5 });
    await api.editMessageText(1, 2, "plain");
    expect(JSON.parse(seen[0]!.body as string)).toEqual({ chat_id: 1, message_id: 2, text: "plain" });
  });

  it("runs transformers last-added first, each able to change the call", async () => {
    const seen = serve(() => ok(true));
    const api = new BotApi("t", { apiRoot: "http://bot.test", timeoutSeconds: 5 });
    const order: string[] = [];
    api.config.use(
      (previous, method, payload, signal) => {
        order.push("first added");
        return previous(method, { ...payload, inner: true }, signal);
      },
      (previous, method, payload, signal) => {
        order.push("last added");
        return previous(method, { ...payload, outer: true }, signal);
      },
    );
    await api.deleteMessage(1, 2);
    expect(order).toEqual(["last added", "first added"]);
    expect(JSON.parse(seen[0]!.body as string)).toEqual({ chat_id: 1, message_id: 2, outer: true, inner: true });
  });

  it("throws Telegram's refusal with its code, words and retry_after, and a lost call as an HTTP error", async () => {
    serve(() =>
      Response.json({ ok: false, error_code: 429, description: "Too Many Requests", parameters: { retry_after: 3 } }),
    );
    const api = new BotApi("t", { apiRoot: "http://bot.test", timeoutSeconds: 5 });
    const refused = await api.getMe().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BotApiError);
    expect(refused).toMatchObject({
      error_code: 429,
      description: "Too Many Requests",
      parameters: { retry_after: 3 },
    });

    serve(() => new Response("<html>bad gateway</html>", { status: 502 }));
    const garbled = await api.getMe().catch((error: unknown) => error);
    expect(garbled).toBeInstanceOf(BotApiHttpError);
    expect((garbled as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it("gives up on a call Telegram does not answer in time, and leaves no timer behind one it answers", async () => {
    vi.stubGlobal(
      "fetch",
      (_url: string, init: RequestInit) =>
        new Promise<Response>((_resolve, reject) =>
          init.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
        ),
    );
    const slow = new BotApi("t", { apiRoot: "http://bot.test", timeoutSeconds: 0.05 });
    const lost = await slow.getMe().catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(BotApiHttpError);
    expect((lost as Error).cause).toMatchObject({ name: "TimeoutError" });

    vi.useFakeTimers();
    try {
      let answer: (response: Response) => void = () => {};
      serve(() => new Promise<Response>((resolve) => (answer = resolve)));
      const call = new BotApi("t", { apiRoot: "http://bot.test", timeoutSeconds: 60 }).getMe();
      // While Telegram has not answered, the call's deadline is armed; once it has, nothing of it stays behind.
      await vi.waitFor(() => expect(vi.getTimerCount()).toBe(1));
      answer(ok({ id: 1 }));
      await call;
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
