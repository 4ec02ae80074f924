import { describe, expect, it } from "vitest";
import type { ApiCall as ApiCallFn } from "../../../src/telegram/bot-api.ts";
import { messageDefaultsTransformer } from "../../../src/telegram/message-defaults.ts";

function recorder() {
  const payloads: unknown[] = [];
  const previous = (async (_method: string, payload: unknown) => {
    payloads.push(payload);
    return { ok: true, result: true };
  }) as unknown as ApiCallFn;
  return { payloads, previous };
}

describe("messageDefaultsTransformer", () => {
  it("turns link previews off for texts, unless the call says otherwise", async () => {
    const { payloads, previous } = recorder();
    const transformer = messageDefaultsTransformer();
    await transformer(previous, "sendMessage", { chat_id: 1, text: "https://example.com" });
    await transformer(previous, "editMessageText", { chat_id: 1, message_id: 2, text: "x" });
    await transformer(previous, "sendMessage", {
      chat_id: 1,
      text: "x",
      link_preview_options: { is_disabled: false },
    });
    expect(payloads).toEqual([
      { chat_id: 1, text: "https://example.com", link_preview_options: { is_disabled: true } },
      { chat_id: 1, message_id: 2, text: "x", link_preview_options: { is_disabled: true } },
      { chat_id: 1, text: "x", link_preview_options: { is_disabled: false } },
    ]);
  });

  it("leaves other methods alone", async () => {
    const { payloads, previous } = recorder();
    await messageDefaultsTransformer()(previous, "deleteMessage", { chat_id: 1, message_id: 2 });
    expect(payloads).toEqual([{ chat_id: 1, message_id: 2 }]);
  });
});
