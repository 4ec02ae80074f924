import type { Transcription } from "openai/resources/audio/transcriptions";
import { redactSecrets } from "../lib/redact.ts";

export interface TranscriberOptions {
  apiKey: string;
  /** An OpenAI-compatible API root (…/v1); undefined: OpenAI's. */
  baseUrl: string | undefined;
  model: string;
  timeoutMs: number;
}

export class TranscriptionError extends Error {
  override readonly name = "TranscriptionError";
}

/**
 * Speech to text through an OpenAI-compatible `POST /audio/transcriptions`, as one plain multipart `fetch` (the SDK's
 * client class would bring every API resource into the bundle). The file name's extension tells the API the format
 * (ogg, mp3, mp4…). No retries: a failed transcription is reported in the chat, and the user sends the note again.
 */
export class Transcriber {
  private readonly url: string;

  constructor(private readonly options: TranscriberOptions) {
    this.url = `${(options.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/audio/transcriptions`;
  }

  async transcribe(audio: { bytes: ArrayBuffer; mediaType: string; fileName: string }): Promise<string> {
    const form = new FormData();
    form.append("file", new File([audio.bytes], audio.fileName, { type: audio.mediaType }));
    form.append("model", this.options.model);
    form.append("response_format", "json");
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { authorization: `Bearer ${this.options.apiKey}` },
        body: form,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      const detail = error instanceof Error ? error.name : "network";
      throw new TranscriptionError(`transcription failed: ${detail}`, { cause: error });
    }
    if (!response.ok) {
      const detail = await response.text().catch(() => "");
      throw new TranscriptionError(
        `transcription failed: HTTP ${response.status} ${redactSecrets(detail).slice(0, 200)}`,
      );
    }
    const body = (await response.json().catch(() => undefined)) as Partial<Transcription> | undefined;
    if (typeof body?.text !== "string") throw new TranscriptionError("transcription failed: no text in the answer");
    return body.text.trim();
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
