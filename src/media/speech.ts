import type { SpeechRoute } from "../config/speech-settings.ts";
import { errorText } from "../lib/errors.ts";
import { redactSecrets } from "../lib/redact.ts";
import { type LanguageCode, languageName } from "./speech-language.ts";

/** Spoken audio as `sendVoice` takes it: Opus in OGG, or MP3 (the Bot API accepts both for voice messages). */
export interface SpokenAudio {
  bytes: Uint8Array;
  mediaType: "audio/ogg" | "audio/mpeg";
  fileName: string;
}

/** Why speech failed, in the chat's words: the key refused, a limit, the service away, or its answer refused. */
export type SpeechFailure =
  | "key refused"
  | "rate-limited"
  | "unreachable"
  | "unavailable"
  | "timeout"
  | "refused"
  | "unreadable";

/** The one error type of text to speech, with the service's answer (status, a redacted detail) in its message. */
export class SpeechError extends Error {
  override readonly name = "SpeechError";

  constructor(
    readonly failure: SpeechFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A text-to-speech model, as the reply side uses it. */
export interface Speaker {
  /** For the chat: "OpenAI's gpt-4o-mini-tts", "Workers AI's @cf/myshell-ai/melotts". */
  readonly label: string;
  /** Whether its voices speak this language (undefined: not known, which every speaker takes). */
  speaks(language: LanguageCode | undefined): boolean;
  speak(text: string, language: LanguageCode | undefined): Promise<SpokenAudio>;
}

/** The part of the `AI` binding text to speech uses (`env.AI` has it; tests pass a fake). */
export interface SpeechRunner {
  run(
    model: string,
    inputs: Record<string, unknown>,
    options?: { returnRawResponse?: boolean; signal?: AbortSignal },
  ): Promise<unknown>;
}

export interface SpeakerSources {
  openaiApiKey: string | undefined;
  /** The `AI` binding; absent in local dev, where it would need a Cloudflare login. */
  ai: SpeechRunner | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/** The configured speaker, or why there is none, in words for the chat. */
/** A speaker, or why there is none, in words for the chat. */
export type SpeakerChoice = Speaker | { unavailable: string };

export function speakerOf(route: SpeechRoute, sources: SpeakerSources): SpeakerChoice {
  switch (route.kind) {
    case "off":
      return { unavailable: "speech is turned off for this bot (SPEECH_MODEL)" };
    case "openai":
      if (!sources.openaiApiKey) return { unavailable: "SPEECH_MODEL needs OPENAI_API_KEY, which is not set" };
      return new OpenAiSpeaker({
        apiKey: sources.openaiApiKey,
        baseUrl: route.baseUrl,
        model: route.model,
        voice: route.voice,
        timeoutMs: sources.timeoutMs,
        ...(sources.fetch ? { fetch: sources.fetch } : {}),
      });
    case "workers-ai":
      if (!sources.ai) {
        return {
          unavailable:
            "there is no Workers AI binding here (local dev runs without it), so set OPENAI_API_KEY to speak with OpenAI",
        };
      }
      return new WorkersAiSpeaker({ runner: sources.ai, model: route.model, voice: route.voice });
  }
}

interface OpenAiSpeakerOptions {
  apiKey: string;
  /** An OpenAI-compatible API root (…/v1); undefined: OpenAI's. */
  baseUrl: string | undefined;
  model: string;
  voice: string | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * OpenAI's `POST /audio/speech` as one plain `fetch`: `response_format: "opus"` answers Opus in OGG, which `sendVoice`
 * takes as it is. The voices speak whatever language the text is in; newer models (not tts-1) also take
 * `instructions`, which name the language so that a short text is not read with the wrong accent. At most 4,096
 * characters of input; the caller cuts the text well before.
 */
class OpenAiSpeaker implements Speaker {
  readonly label: string;
  private readonly url: string;

  constructor(private readonly options: OpenAiSpeakerOptions) {
    this.label = `the speech model ${options.model}`;
    this.url = `${(options.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/audio/speech`;
  }

  speaks(): boolean {
    return true;
  }

  async speak(text: string, language: LanguageCode | undefined): Promise<SpokenAudio> {
    const { model } = this.options;
    const takesInstructions = !/^tts-1/.test(model);
    const body = {
      model,
      input: text,
      voice: this.options.voice ?? "coral",
      response_format: "opus",
      ...(takesInstructions
        ? {
            instructions: `Read this answer aloud naturally, in a calm and friendly tone${
              language ? `, in ${languageName(language)}` : ""
            }.`,
          }
        : {}),
    };
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(this.url, {
        method: "POST",
        headers: { authorization: `Bearer ${this.options.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      throw new SpeechError(timedOut ? "timeout" : "unreachable", `speech: ${errorText(error)}`, { cause: error });
    }
    if (!response.ok) {
      const detail = redactSecrets(await response.text().catch(() => "")).slice(0, 200);
      throw new SpeechError(failureOfStatus(response.status), `speech: HTTP ${response.status} ${detail}`.trim());
    }
    return audioOf(new Uint8Array(await response.arrayBuffer()));
  }
}

/** Workers AI's text-to-speech models and the languages their voices speak (ISO 639-1). */
const WORKERS_AI_LANGUAGES: Record<string, readonly LanguageCode[]> = {
  "@cf/myshell-ai/melotts": ["en", "es", "fr", "zh", "ja", "ko"],
  "@cf/deepgram/aura-1": ["en"],
  "@cf/deepgram/aura-2-en": ["en"],
  "@cf/deepgram/aura-2-es": ["es"],
};

/**
 * A Workers AI model through the `AI` binding. MeloTTS takes `{ prompt, lang }` and answers MP3 (base64 in
 * `audio`, or bytes), which `sendVoice` takes; Deepgram's Aura models take `{ text, speaker }` and are asked for Opus
 * in OGG directly, read from the raw response. A language a model's voices do not speak is not attempted.
 */
class WorkersAiSpeaker implements Speaker {
  readonly label: string;

  constructor(private readonly options: { runner: SpeechRunner; model: string; voice: string | undefined }) {
    this.label = `Workers AI's ${options.model}`;
  }

  speaks(language: LanguageCode | undefined): boolean {
    const languages = WORKERS_AI_LANGUAGES[this.options.model];
    return language === undefined || languages === undefined || languages.includes(language);
  }

  async speak(text: string, language: LanguageCode | undefined): Promise<SpokenAudio> {
    const { runner, model, voice } = this.options;
    let output: unknown;
    try {
      output = model.includes("/deepgram/aura")
        ? await runner.run(
            model,
            { text, encoding: "opus", container: "ogg", ...(voice ? { speaker: voice } : {}) },
            { returnRawResponse: true },
          )
        : await runner.run(model, { prompt: text, lang: language ?? "en" });
    } catch (error) {
      const message = redactSecrets(errorText(error)).slice(0, 200);
      throw new SpeechError(/capacity|rate|limit/i.test(message) ? "rate-limited" : "refused", `speech: ${message}`, {
        cause: error,
      });
    }
    if (output instanceof Response) {
      if (!output.ok) throw new SpeechError(failureOfStatus(output.status), `speech: HTTP ${output.status}`);
      return audioOf(new Uint8Array(await output.arrayBuffer()));
    }
    if (output instanceof Uint8Array) return audioOf(output);
    if (output instanceof ReadableStream) return audioOf(new Uint8Array(await new Response(output).arrayBuffer()));
    if (output !== null && typeof output === "object" && "audio" in output && typeof output.audio === "string") {
      return audioOf(fromBase64(output.audio));
    }
    throw new SpeechError("unreadable", "speech: Workers AI answered in a shape this bot does not read");
  }
}

function failureOfStatus(status: number): SpeechFailure {
  if (status === 401 || status === 403) return "key refused";
  if (status === 429) return "rate-limited";
  if (status === 408 || status === 504) return "timeout";
  if (status >= 500) return "unavailable";
  return "refused";
}

/** The bytes' own format decides (a server may label them loosely): OGG starts "OggS", MP3 an ID3 tag or a frame. */
function audioOf(bytes: Uint8Array): SpokenAudio {
  if (bytes.length > 4 && bytes[0] === 0x4f && bytes[1] === 0x67 && bytes[2] === 0x67 && bytes[3] === 0x53) {
    return { bytes, mediaType: "audio/ogg", fileName: "answer.ogg" };
  }
  const id3 = bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33;
  const frame = bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0;
  if (bytes.length > 4 && (id3 || frame)) return { bytes, mediaType: "audio/mpeg", fileName: "answer.mp3" };
  throw new SpeechError("unreadable", "speech: the answer is neither OGG nor MP3 audio");
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
