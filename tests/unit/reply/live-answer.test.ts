import { describe, expect, it } from "vitest";
import { STREAM_LIMIT, streamedText, wholeCharacters } from "../../../src/reply/live-answer.ts";

describe("a streamed text", () => {
  it("stops before the first half of a surrogate pair its stream has not finished", () => {
    const half = "😀".charAt(0);
    expect(wholeCharacters(`ab${half}`)).toBe("ab");
    expect(wholeCharacters("ab😀")).toBe("ab😀");
    expect(wholeCharacters("")).toBe("");
    expect(streamedText(`hi ${half}`)).toBe("hi");
  });

  it("shows the end of a text longer than a message, never starting inside an emoji", () => {
    const shown = streamedText(`x${"😀".repeat(STREAM_LIMIT)}`);
    expect(shown.length).toBeLessThanOrEqual(STREAM_LIMIT);
    expect(shown.startsWith("…😀")).toBe(true);
  });
});
