import { describe, expect, it } from "vitest";
import { oggOpusSeconds, recordingSeconds } from "../../../src/media/audio-length.ts";

/** An Ogg page: capture pattern, then the granule position at offset 6, then (for the test) a body. */
function oggPage(granule: bigint, body: Uint8Array): Uint8Array {
  const page = new Uint8Array(27 + body.length);
  page.set(new TextEncoder().encode("OggS"), 0);
  new DataView(page.buffer).setBigInt64(6, granule, true);
  page.set(body, 27);
  return page;
}

function opusFile(seconds: number, preSkip = 312): Uint8Array {
  const head = new Uint8Array(19);
  head.set(new TextEncoder().encode("OpusHead"), 0);
  head[8] = 1;
  head[9] = 1;
  head[10] = preSkip & 0xff;
  head[11] = preSkip >> 8;
  const pages = [
    oggPage(0n, head),
    oggPage(BigInt(seconds * 48_000 + preSkip), new Uint8Array(100)),
    // A last page on which no packet ends: an earlier page has the position.
    oggPage(-1n, new Uint8Array(10)),
  ];
  const bytes = new Uint8Array(pages.reduce((sum, page) => sum + page.length, 0));
  let at = 0;
  for (const page of pages) {
    bytes.set(page, at);
    at += page.length;
  }
  return bytes;
}

describe("a recording's length, as measured", () => {
  it("is the larger of the declared length and what its size holds at a generous bitrate", () => {
    expect(recordingSeconds({ source: "voice", durationSeconds: 1, size: 5 * 1024 * 1024 })).toBe(1311);
    expect(recordingSeconds({ source: "voice", durationSeconds: 60, size: 240_000 })).toBe(60);
    expect(recordingSeconds({ source: "audio", durationSeconds: 180, size: 2_900_000 })).toBe(180);
    expect(recordingSeconds({ source: "voice" })).toBe(1);
  });

  it("reads an Ogg Opus file's own length from its last page with a position", () => {
    expect(oggOpusSeconds(opusFile(95))).toBeCloseTo(95);
    expect(oggOpusSeconds(new TextEncoder().encode("not ogg at all"))).toBeUndefined();
    expect(oggOpusSeconds(new TextEncoder().encode("OggS fake opus"))).toBeUndefined();
  });
});
