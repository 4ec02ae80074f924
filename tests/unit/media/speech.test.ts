import { describe, expect, it } from "vitest";
import { SpeechError, type SpeechRunner, speakerOf } from "../../../src/media/speech.ts";

const OGG = Uint8Array.of(0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0);
const MP3 = Uint8Array.of(0x49, 0x44, 0x33, 4, 0, 0, 0, 0);

function fakeRunner(answer: (model: string, inputs: Record<string, unknown>) => unknown) {
  const calls: { model: string; inputs: Record<string, unknown>; options: unknown }[] = [];
  const runner: SpeechRunner = {
    run: async (model, inputs, options) => {
      calls.push({ model, inputs, options });
      return answer(model, inputs);
    },
  };
  return { runner, calls };
}

const workersAi = (model: string, runner: SpeechRunner, voice?: string) =>
  speakerOf({ kind: "workers-ai", model, voice }, { openaiApiKey: undefined, ai: runner, timeoutMs: 1000 });

describe("Workers AI speech", () => {
  it("MeloTTS: the language as `lang`, base64 MP3 back, which sendVoice takes as it is", async () => {
    const { runner, calls } = fakeRunner(() => ({ audio: btoa(String.fromCharCode(...MP3)) }));
    const speaker = workersAi("@cf/myshell-ai/melotts", runner);
    if ("unavailable" in speaker) throw new Error(speaker.unavailable);
    const audio = await speaker.speak("Hola a todos.", "es");
    expect(calls).toEqual([
      { model: "@cf/myshell-ai/melotts", inputs: { prompt: "Hola a todos.", lang: "es" }, options: undefined },
    ]);
    expect(audio).toEqual({ bytes: MP3, mediaType: "audio/mpeg", fileName: "answer.mp3" });
    expect(speaker.speaks("de")).toBe(false);
    expect(speaker.speaks("ja")).toBe(true);
  });

  it("Aura: asked for Opus in OGG with the configured speaker, read from the raw response", async () => {
    const { runner, calls } = fakeRunner(() => new Response(OGG));
    const speaker = workersAi("@cf/deepgram/aura-2-en", runner, "luna");
    if ("unavailable" in speaker) throw new Error(speaker.unavailable);
    const audio = await speaker.speak("Hello.", "en");
    expect(calls[0]).toEqual({
      model: "@cf/deepgram/aura-2-en",
      inputs: { text: "Hello.", encoding: "opus", container: "ogg", speaker: "luna" },
      options: { returnRawResponse: true },
    });
    expect(audio.mediaType).toBe("audio/ogg");
  });

  it("an answer that is not audio, or a failing binding, is a SpeechError", async () => {
    const notAudio = workersAi("@cf/myshell-ai/melotts", fakeRunner(() => ({ audio: btoa("<html>") })).runner);
    if ("unavailable" in notAudio) throw new Error(notAudio.unavailable);
    await expect(notAudio.speak("Hi.", "en")).rejects.toMatchObject({ failure: "unreadable" });
    const failing = workersAi(
      "@cf/myshell-ai/melotts",
      fakeRunner(() => {
        throw new Error("3040: Capacity temporarily exceeded");
      }).runner,
    );
    if ("unavailable" in failing) throw new Error(failing.unavailable);
    const error = await failing.speak("Hi.", "en").catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SpeechError);
    expect(error).toMatchObject({ failure: "rate-limited" });
  });

  it("without the binding (local dev), says so and what to set instead", () => {
    const speaker = speakerOf(
      { kind: "workers-ai", model: "@cf/myshell-ai/melotts", voice: undefined },
      { openaiApiKey: undefined, ai: undefined, timeoutMs: 1000 },
    );
    expect(speaker).toEqual({ unavailable: expect.stringContaining("set OPENAI_API_KEY") });
  });
});

describe("OpenAI speech", () => {
  it("posts model, voice, opus and instructions naming the language; a 401 is the key refused", async () => {
    const bodies: unknown[] = [];
    const answers = [
      new Response(OGG),
      new Response('{"error":{"message":"bad key sk-abcdef123456"}}', { status: 401 }),
    ];
    const speaker = speakerOf(
      { kind: "openai", model: "gpt-4o-mini-tts", voice: undefined, baseUrl: "https://speech.test/v1/" },
      {
        openaiApiKey: "sk-test",
        ai: undefined,
        timeoutMs: 1000,
        fetch: async (url, init) => {
          bodies.push({ url: String(url), body: JSON.parse(String(init?.body)) });
          return answers.shift()!;
        },
      },
    );
    if ("unavailable" in speaker) throw new Error(speaker.unavailable);
    expect((await speaker.speak("Bonjour à tous.", "fr")).mediaType).toBe("audio/ogg");
    expect(bodies[0]).toEqual({
      url: "https://speech.test/v1/audio/speech",
      body: {
        model: "gpt-4o-mini-tts",
        input: "Bonjour à tous.",
        voice: "coral",
        response_format: "opus",
        instructions: "Read this answer aloud naturally, in a calm and friendly tone, in French.",
      },
    });
    const refused = await speaker.speak("Again.", undefined).catch((thrown: unknown) => thrown);
    expect(refused).toMatchObject({ failure: "key refused" });
    expect(String((refused as Error).message)).not.toContain("sk-abcdef123456");
  });

  it("tts-1 takes no instructions", async () => {
    let sent: Record<string, unknown> = {};
    const speaker = speakerOf(
      { kind: "openai", model: "tts-1", voice: "alloy", baseUrl: undefined },
      {
        openaiApiKey: "sk-test",
        ai: undefined,
        timeoutMs: 1000,
        fetch: async (_url, init) => {
          sent = JSON.parse(String(init?.body));
          return new Response(OGG);
        },
      },
    );
    if ("unavailable" in speaker) throw new Error(speaker.unavailable);
    await speaker.speak("Hello.", "en");
    expect(sent).toEqual({ model: "tts-1", input: "Hello.", voice: "alloy", response_format: "opus" });
  });
});
