import OpenAI, { toFile } from "openai";
import { redactSecrets } from "../config/secrets.ts";

export interface TranscriberOptions {
  apiKey: string;
  /** An OpenAI-compatible API root (…/v1); undefined: OpenAI's. */
  baseUrl: string | undefined;
  model: string;
  maxRetries: number;
  timeoutMs: number;
}

export class TranscriptionError extends Error {
  override readonly name = "TranscriptionError";
}

/**
 * Speech to text through an OpenAI-compatible `POST /audio/transcriptions` (the OpenAI SDK, for its bounded retries
 * that honour `retry-after`). The file name's extension tells the API the format (ogg, mp3, mp4…).
 */
export class Transcriber {
  private readonly client: OpenAI;

  constructor(private readonly options: TranscriberOptions) {
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseUrl,
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
    });
  }

  async transcribe(audio: { bytes: ArrayBuffer; mediaType: string; fileName: string }): Promise<string> {
    try {
      const file = await toFile(audio.bytes, audio.fileName, { type: audio.mediaType });
      const result = await this.client.audio.transcriptions.create({ file, model: this.options.model });
      return result.text.trim();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new TranscriptionError(`transcription failed: ${redactSecrets(detail).slice(0, 200)}`, { cause: error });
    }
  }
}

/** A file name with the extension the transcription API reads the format from. */
export function recordingFileName(source: "voice" | "audio" | "video_note", mediaType: string, given?: string): string {
  if (given && /\.[a-z0-9]{2,5}$/i.test(given)) return given;
  if (source === "voice") return "voice.ogg";
  if (source === "video_note") return "video-note.mp4";
  const extension = { "audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/ogg": "ogg", "audio/wav": "wav" }[mediaType];
  return `audio.${extension ?? "mp3"}`;
}
