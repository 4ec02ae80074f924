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
});
