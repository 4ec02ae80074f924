import { afterEach, describe, expect, it, vi } from "vitest";
import { TelegramClient } from "../../../src/telegram/client.ts";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** Telegram as fetch sees it: every call answered at once, its method noted. */
function serve(): string[] {
  const methods: string[] = [];
  vi.stubGlobal("fetch", async (url: string) => {
    methods.push(url.split("/").at(-1) ?? "");
    return Response.json({
      ok: true,
      result: { message_id: methods.length, date: 1, chat: { id: 42, type: "private" } },
    });
  });
  return methods;
}

describe("a Telegram client after a gate", () => {
  it("makes no call until the gate settles (whether it resolves or rejects); the client it came from goes on", async () => {
    const methods = serve();
    const client = new TelegramClient({ botToken: "123:abc", apiBaseUrl: "http://bot.test" });
    let open: (value?: unknown) => void = () => {};
    let refuse: (error: Error) => void = () => {};
    const gated = client.after(new Promise((resolve) => (open = resolve)));
    const refused = client.after(new Promise((_resolve, reject) => (refuse = reject)));

    const typing = gated.sendTyping({ chatId: 42 });
    const sent = gated.sendPlain({ chatId: 42 }, "after the earlier answer");
    const later = refused.sendTyping({ chatId: 42 });
    await client.sendPlain({ chatId: 42 }, "the earlier answer");
    expect(methods).toEqual(["sendMessage"]);

    open();
    await Promise.all([typing, sent]);
    expect(methods).toEqual(["sendMessage", "sendChatAction", "sendMessage"]);
    refuse(new Error("the earlier delivery failed"));
    await later;
    expect(methods).toHaveLength(4);
  });
});
