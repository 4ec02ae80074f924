import { describe, expect, it } from "vitest";
import { StreamedText } from "../../../src/reply/streamed-text.ts";

describe("StreamedText", () => {
  it("gathers deltas and notes when the first came", () => {
    const streamed = new StreamedText();
    expect(streamed.startedAt).toBe(0);
    expect(streamed.append("Hel")).toBe(false);
    const started = streamed.startedAt;
    expect(started).toBeGreaterThan(0);
    streamed.append("lo");
    expect(streamed.value).toBe("Hello");
    expect(streamed.startedAt).toBe(started);
  });

  it("keeps the text through a restart until the next delta, which begins it over", () => {
    const streamed = new StreamedText();
    streamed.append("first try");
    streamed.restart();
    expect(streamed.restartPending).toBe(true);
    expect(streamed.value).toBe("first try");
    expect(streamed.append("second")).toBe(true);
    expect(streamed.restartPending).toBe(false);
    expect(streamed.value).toBe("second");
    expect(streamed.append(" try")).toBe(false);
    expect(streamed.value).toBe("second try");
  });
});
