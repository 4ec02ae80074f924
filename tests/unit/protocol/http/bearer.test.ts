import { describe, expect, it } from "vitest";
import { secretsEqual } from "../../../../src/protocol/http/bearer.ts";

describe("secretsEqual", () => {
  it("is true only for the same secret", async () => {
    expect(await secretsEqual("s3cret-token", "s3cret-token")).toBe(true);
    expect(await secretsEqual("s3cret-token", "s3cret-tokeN")).toBe(false);
    expect(await secretsEqual("s3cret", "s3cret-token")).toBe(false);
    expect(await secretsEqual("s3cret-token-and-more", "s3cret-token")).toBe(false);
    expect(await secretsEqual("", "s3cret-token")).toBe(false);
    expect(await secretsEqual("", "")).toBe(true);
    expect(await secretsEqual("пароль-🔑", "пароль-🔑")).toBe(true);
  });

  it("tells a secret from the same secret padded with zero bytes (the fixed buffers' filler)", async () => {
    expect(await secretsEqual("token\u0000", "token")).toBe(false);
    expect(await secretsEqual("token", "token\u0000\u0000")).toBe(false);
  });

  it("compares secrets longer than its fixed buffer, and one on each side of the buffer's size", async () => {
    const long = "k".repeat(5000);
    expect(await secretsEqual(long, long)).toBe(true);
    expect(await secretsEqual(long, `${long.slice(1)}K`)).toBe(false);
    const exact = "e".repeat(256);
    expect(await secretsEqual(exact, exact)).toBe(true);
    expect(await secretsEqual(`${exact}e`, exact)).toBe(false);
    expect(await secretsEqual(exact, `${exact}e`)).toBe(false);
    // 256 bytes that are fewer characters: a multi-byte character across the buffer's end goes the long way.
    const multiByte = `${"a".repeat(255)}ж`;
    expect(await secretsEqual(multiByte, multiByte)).toBe(true);
    expect(await secretsEqual(multiByte, `${"a".repeat(255)}з`)).toBe(false);
  });

  it("leaves nothing of one comparison in the next (its buffers are reused)", async () => {
    // A longer secret, then a shorter one that is its prefix: a stale tail would make them look different or alike.
    expect(await secretsEqual("prefix-and-tail", "prefix-and-tail")).toBe(true);
    expect(await secretsEqual("prefix", "prefix")).toBe(true);
    expect(await secretsEqual("prefix-and-tail", "other-secret")).toBe(false);
    expect(await secretsEqual("prefix", "prefix")).toBe(true);
    // Concurrent callers each get their own answer.
    const answers = await Promise.all([
      secretsEqual("one", "one"),
      secretsEqual("two", "tw0"),
      secretsEqual("k".repeat(300), "k".repeat(300)),
      secretsEqual("three", "three"),
    ]);
    expect(answers).toEqual([true, false, true, true]);
  });
});
