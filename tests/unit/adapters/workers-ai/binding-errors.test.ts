import { describe, expect, it } from "vitest";
import { classifyBindingError } from "../../../../src/adapters/workers-ai/binding-errors.ts";

describe("classifyBindingError", () => {
  it.each([
    ["3040: Capacity temporarily exceeded, please try again.", "overloaded"],
    ["4006: you have used up your daily free allocation of 10,000 neurons", "quota"],
    ["3036: Account limited: rate limit exceeded", "quota"],
    ["3007: Request timeout", "timeout"],
    ["5006: Error: required properties at '/' are 'messages'", "invalid_request"],
    ["No such model @cf/nobody/nothing or task", "invalid_request"],
    ["Something broke", "transport"],
  ])("%s → %s", (message, classification) => {
    expect(classifyBindingError(message)).toBe(classification);
  });
});
