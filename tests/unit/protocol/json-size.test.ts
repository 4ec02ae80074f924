import { describe, expect, it } from "vitest";
import { jsonBytes, jsonBytesOfAll } from "../../../src/protocol/json-size.ts";
import type { HistoryMessage } from "../../../src/protocol/messages.ts";

describe("jsonBytes", () => {
  it("measures a message's JSON in UTF-8 bytes, not characters", () => {
    const message: HistoryMessage = { role: "user", content: "héllo 🙂" };
    // 36 UTF-16 units (the emoji is two); in UTF-8 é takes two bytes and the emoji four.
    expect(JSON.stringify(message)).toHaveLength(36);
    expect(jsonBytes(message)).toBe(39);
    expect(jsonBytes(message)).toBe(39);
    expect(jsonBytes({ role: "user", content: "hello" })).toBe(33);
  });

  it("measures a list as JSON.stringify writes it", () => {
    const messages: HistoryMessage[] = [
      { role: "user", content: "naïve" },
      { role: "assistant", content: "ok 🙂" },
    ];
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
    expect(jsonBytesOfAll(messages)).toBe(bytes(messages));
    expect(jsonBytesOfAll(messages.slice(0, 1))).toBe(bytes(messages.slice(0, 1)));
    expect(jsonBytesOfAll([])).toBe(2);
  });
});
