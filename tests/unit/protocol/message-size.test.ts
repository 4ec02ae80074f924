import { describe, expect, it } from "vitest";
import { jsonBytes } from "../../../src/protocol/message-size.ts";
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
});
