import { describe, expect, it } from "vitest";
import { admin, fakes, mediaUpdate, PRIVATE_CHAT, post, sentText } from "./helpers.ts";

/**
 * Issue 40.4: audio is priced by what is measured, not by what the sender declares. The review's attack: three 5 MB
 * voice notes declaring 1 s each were transcribed and counted as 3 seconds, past a one-minute cap.
 */
const FIVE_MB = 5 * 1024 * 1024;
const bigVoice = (id: string) => ({
  voice: { file_id: id, file_unique_id: `${id}-u`, duration: 1, mime_type: "audio/ogg", file_size: FIVE_MB },
});

const transcriptions = async () =>
  (await fakes.requests("openai")).filter((call) => call.path.endsWith("/audio/transcriptions"));

describe("security: audio priced by its size as well as its declared length", () => {
  it("three 5 MB voice notes declaring 1 s each count as minutes: none passes a one-minute cap", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ limits: { audioMinutesPerDay: 1 } }),
    });
    for (const [index, id] of ["big1", "big2", "big3"].entries()) {
      await fakes.file({ fileId: id, base64: Buffer.from("OggS fake opus").toString("base64") });
      await post(mediaUpdate(bigVoice(id)));
      await fakes.wait("openai", { count: index + 1 });
    }
    expect(await transcriptions()).toHaveLength(0);
    const told = (await fakes.requests("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT })).map(sentText);
    expect(told.filter((text) => text.startsWith("🎤 I didn't listen to the voice note"))).toHaveLength(3);
  });

  it("a voice note whose size fits its declared length is still transcribed", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ limits: { audioMinutesPerDay: 1 } }),
    });
    await fakes.file({ fileId: "small", base64: Buffer.from("OggS fake opus").toString("base64") });
    await post(
      mediaUpdate({
        voice: { file_id: "small", file_unique_id: "small-u", duration: 20, mime_type: "audio/ogg", file_size: 60_000 },
      }),
    );
    await fakes.wait("openai", { count: 2 });
    expect(await transcriptions()).toHaveLength(1);
  });

  it("a small Ogg Opus file that declares 1 s but holds two hours is measured after the download, and not transcribed", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ limits: { audioMinutesPerDay: 1 } }),
    });
    await fakes.file({ fileId: "long", base64: Buffer.from(opusBytes(2 * 3600)).toString("base64") });
    await post(
      mediaUpdate({
        voice: { file_id: "long", file_unique_id: "long-u", duration: 1, mime_type: "audio/ogg", file_size: 300 },
      }),
    );
    await fakes.wait("openai", { count: 1 });
    expect(await transcriptions()).toHaveLength(0);
  });
});

/** An Ogg Opus file's first page (its OpusHead) and a last page whose granule position says `seconds` long. */
function opusBytes(seconds: number): Uint8Array {
  const page = (granule: bigint, body: Uint8Array) => {
    const bytes = new Uint8Array(27 + body.length);
    bytes.set(new TextEncoder().encode("OggS"), 0);
    new DataView(bytes.buffer).setBigInt64(6, granule, true);
    bytes.set(body, 27);
    return bytes;
  };
  const head = new Uint8Array(19);
  head.set(new TextEncoder().encode("OpusHead"), 0);
  const first = page(0n, head);
  const last = page(BigInt(seconds * 48_000), new Uint8Array(50));
  const file = new Uint8Array(first.length + last.length);
  file.set(first, 0);
  file.set(last, first.length);
  return file;
}
