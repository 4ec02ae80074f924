import { describe, expect, it } from "vitest";
import { chatKeyOf, parseChatKey } from "../../../src/durable/chat-key.ts";

describe("chatKeyOf and parseChatKey", () => {
  it.each([
    [{ chatId: 1001 }, "chat:1001"],
    [{ chatId: -2001 }, "chat:-2001"],
    [{ chatId: -1001234567890 }, "chat:-1001234567890"],
    [{ chatId: 0 }, "chat:0"],
    [{ chatId: -1001234567890, threadId: 42 }, "chat:-1001234567890:topic:42"],
    [{ chatId: 1001, threadId: 1 }, "chat:1001:topic:1"],
    [{ chatId: 9007199254740991 }, "chat:9007199254740991"],
    [{ chatId: -9007199254740991, threadId: 9007199254740991 }, "chat:-9007199254740991:topic:9007199254740991"],
  ])("round-trip %j as %s", (target, key) => {
    expect(chatKeyOf(target)).toBe(key);
    expect(parseChatKey(key)).toStrictEqual(target);
  });

  it("gives a chat and each of its topics different keys", () => {
    const keys = [
      chatKeyOf({ chatId: -100 }),
      chatKeyOf({ chatId: -100, threadId: 1 }),
      chatKeyOf({ chatId: -100, threadId: 2 }),
    ];
    expect(new Set(keys).size).toBe(3);
  });

  it("has no threadId key for a plain chat", () => {
    expect(Object.keys(parseChatKey("chat:5")!)).toEqual(["chatId"]);
  });

  it.each([
    "",
    "chat:",
    "chat",
    "user:1001",
    "Chat:1001",
    "chat:abc",
    "chat:1.5",
    "chat:1e3",
    "chat:+1001",
    "chat:0x10",
    "chat:--1",
    " chat:1001",
    "chat:1001 ",
    "chat:1001\n",
    "chat:1001:",
    "chat:1001:topic:",
    "chat:1001:topic:-5",
    "chat:1001:topic:x",
    "chat:1001:thread:5",
    "chat:1001:topic:5:topic:6",
    "chat:1001:topic:5/extra",
  ])("refuses the malformed key %j", (key) => {
    expect(parseChatKey(key)).toBeUndefined();
  });

  it.each([
    "chat:9007199254740992",
    "chat:-9007199254740992",
    "chat:9007199254740993",
    "chat:99999999999999999",
    "chat:1234567890123456789",
    "chat:1:topic:9007199254740992",
    "chat:1:topic:12345678901234567",
  ])("refuses ids past 2^53: %s", (key) => {
    expect(parseChatKey(key)).toBeUndefined();
  });

  // Non-canonical spellings would give one chat two names ("chat:007" and "chat:7").
  it("refuses keys chatKeyOf cannot have made: leading zeros and -0", () => {
    for (const key of ["chat:007", "chat:-0", "chat:-0042", "chat:1:topic:01"]) {
      const target = parseChatKey(key);
      expect(target === undefined || chatKeyOf(target) === key, key).toBe(true);
    }
  });
});
