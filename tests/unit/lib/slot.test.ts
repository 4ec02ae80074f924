import { describe, expect, it } from "vitest";
import * as z from "zod";
import { slot } from "../../../src/lib/slot.ts";

describe("slot", () => {
  it("names a value and its schema, and refuses a key declared twice", () => {
    const first = slot("test-slot-once", z.number());
    expect(first.key).toBe("test-slot-once");
    expect(first.schema.parse(3)).toBe(3);
    expect(() => slot("test-slot-once", z.string())).toThrow('the chat slot "test-slot-once" is declared twice');
  });
});
