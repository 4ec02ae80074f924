import { describe, expect, it } from "vitest";
import { readValues } from "../../../src/config/setting-values.ts";

describe("where a knob's value comes from", () => {
  it("a variable wins over the console, the console over the default", () => {
    const read = readValues({ HISTORY_LIMIT: "30" }, { HISTORY_LIMIT: "10", HISTORY_WINDOW_TOKENS: "9000" });
    expect(read.values.HISTORY_LIMIT).toBe(30);
    expect(read.sources.HISTORY_LIMIT).toBe("variable");
    expect(read.values.HISTORY_WINDOW_TOKENS).toBe(9000);
    expect(read.sources.HISTORY_WINDOW_TOKENS).toBe("console");
    expect(read.sources.BOT_NAME).toBe("default");
    expect(read.problems).toEqual([]);
  });

  it("the console cannot set a variable or a secret, even by writing KV by hand", () => {
    const read = readValues({}, { OPENAI_BASE_URL: "https://evil.example", TELEGRAM_BOT_TOKEN: "1:x" });
    expect(read.values.OPENAI_BASE_URL).toBeUndefined();
    expect(read.values.TELEGRAM_BOT_TOKEN).toBeUndefined();
  });

  it("names a bad console value as the console's, and applies the default", () => {
    const read = readValues({}, { HISTORY_LIMIT: "1" });
    expect(read.values.HISTORY_LIMIT).toBe(40);
    expect(read.problems).toEqual(["HISTORY_LIMIT (set in the console) must be a whole number from 2 to 1000"]);
  });

  it("ignores what is not a string (bindings) and empty text", () => {
    const read = readValues({ HISTORY_LIMIT: 12, BOT_NAME: "  " });
    expect(read.sources.HISTORY_LIMIT).toBe("default");
    expect(read.sources.BOT_NAME).toBe("default");
  });
});
