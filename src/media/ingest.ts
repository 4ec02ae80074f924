import { sizeText } from "../adapters/media-parts.ts";
import type { PaidCallGate } from "../budget/paid-calls.ts";
import { type MediaSettings, TELEGRAM_DOWNLOAD_LIMIT_BYTES } from "../config/settings.ts";
import { assertNever } from "../lib/errors.ts";
import type { Attachment } from "../protocol/messages.ts";
import { FileDownloadError, type TelegramFiles } from "../telegram/files.ts";
import type { IncomingMedia, TelegramFileRef } from "../telegram/incoming-message.ts";
import { oggOpusSeconds, recordingSeconds } from "./audio-length.ts";
import { pickPhotoSize } from "./photo-size.ts";
import type { MediaShelf } from "./shelf.ts";
import { recordingFileName, type Transcriber, TranscriptionError } from "./transcribe.ts";

export interface IngestServices {
  /** Where files are kept (R2), or read from Telegram again when needed (no R2); undefined: no file is read. */
  shelf: MediaShelf | undefined;
  files: TelegramFiles;
  media: MediaSettings;
  /** Undefined when transcription is off (or has no key). */
  transcriber: Transcriber | undefined;
}

/** What a message's files became: attachments for history, and what the chat and the model are told about the rest. */
export interface IngestResult {
  attachments: Attachment[];
  /** Lines for the chat: a file left out, and why. */
  notices: string[];
  /** Lines for the model, where a file could not be read. */
  placeholders: string[];
  /** Transcripts of this message's recordings, to quote where the chat asked for it. */
  transcripts: string[];
}

type Stored = { kind: "stored"; key: string; size: number; bytes?: ArrayBuffer } | { kind: "failed"; why: string };

/**
 * Brings a message's files in: each is downloaded once (by `file_unique_id`) into R2 and referred to by key;
 * recordings become transcripts (Telegram's own when it sent one). A file over a cap, or one that cannot be fetched,
 * is left out with a line for the chat and one for the model; nothing here throws for one bad file.
 */
export async function ingestMedia(
  services: IngestServices,
  media: readonly IncomingMedia[],
  paid: PaidCallGate,
): Promise<IngestResult> {
  const result: IngestResult = { attachments: [], notices: [], placeholders: [], transcripts: [] };
  for (const item of media) {
    switch (item.kind) {
      case "photo": {
        const size = pickPhotoSize(item.sizes, services.media.imageMaxEdge);
        if (!size) break;
        const stored = await fetchOnce(services, size, { mediaType: item.mediaType, label: "a photo" });
        if (stored.kind === "failed") {
          result.notices.push(`🖼 ${stored.why}`);
          result.placeholders.push(`[a photo that could not be read: ${stored.why}]`);
          break;
        }
        result.attachments.push({
          kind: "image",
          key: stored.key,
          mediaType: item.mediaType,
          size: stored.size,
          ...(size.width ? { width: size.width } : {}),
          ...(size.height ? { height: size.height } : {}),
        });
        break;
      }
      case "recording":
        await ingestRecording(services, item, { result, paid });
        break;
      case "document": {
        const stored = await fetchOnce(services, item.file, {
          mediaType: item.mediaType,
          fileName: item.fileName,
          label: `"${item.fileName}"`,
        });
        if (stored.kind === "failed") {
          result.notices.push(`📎 ${stored.why}`);
          result.placeholders.push(`[a file "${item.fileName}" that could not be read: ${stored.why}]`);
          break;
        }
        result.attachments.push({
          kind: "document",
          key: stored.key,
          mediaType: item.mediaType,
          size: stored.size,
          fileName: item.fileName.slice(0, 300),
        });
        break;
      }
      default:
        assertNever(item);
    }
  }
  return result;
}

async function ingestRecording(
  services: IngestServices,
  item: Extract<IncomingMedia, { kind: "recording" }>,
  { result, paid }: { result: IngestResult; paid: PaidCallGate },
): Promise<void> {
  const what = { voice: "voice note", audio: "audio file", video_note: "video note" }[item.source];
  const common = {
    kind: "transcript" as const,
    mediaType: item.mediaType,
    source: item.source,
    ...(item.durationSeconds !== undefined ? { durationSeconds: item.durationSeconds } : {}),
  };
  // Telegram's own transcript costs nothing: no download, no paid call.
  if (item.transcript) {
    result.attachments.push({ ...common, size: item.file.size ?? 0, text: item.transcript, transcribedBy: "telegram" });
    result.transcripts.push(item.transcript);
    return;
  }
  if (!services.transcriber) {
    result.notices.push(`🎤 I can't listen to a ${what} here: transcription is turned off. Please write instead.`);
    result.placeholders.push(`[a ${what}, not transcribed: transcription is off]`);
    return;
  }
  // Transcription is paid by the minute: the chat's caps and budget are asked before anything is downloaded.
  // Priced by what can be measured: the larger of the declared length and what the file's size can hold.
  const seconds = recordingSeconds({
    source: item.source,
    durationSeconds: item.durationSeconds,
    size: item.file.size,
  });
  const notListened = (refusal: string) => {
    result.notices.push(`🎤 I didn't listen to the ${what}: ${refusal} Please write instead.`);
    result.placeholders.push(`[a ${what}, not transcribed: ${refusal}]`);
  };
  const reserved = paid.reserve("transcription", seconds);
  if ("refused" in reserved) return notListened(reserved.refused);
  const holds = [reserved.held];
  const releaseAll = () => {
    for (const hold of holds) hold.release();
  };
  const stored = await fetchOnce(services, item.file, {
    mediaType: item.mediaType,
    label: `the ${what}`,
    keepBytes: true,
    ...(item.fileName ? { fileName: item.fileName } : {}),
  });
  if (stored.kind === "failed") {
    releaseAll();
    result.notices.push(`🎤 ${stored.why}`);
    result.placeholders.push(`[a ${what} that could not be read: ${stored.why}]`);
    return;
  }
  const bytes = stored.bytes ?? (services.shelf ? await services.shelf.get(stored.key) : undefined);
  if (!bytes) {
    releaseAll();
    result.notices.push(`🎤 I could not read the ${what}; please send it again.`);
    result.placeholders.push(`[a ${what} that could not be read]`);
    return;
  }
  // An Ogg Opus file says how long it is: longer than held, the rest is held too (or it is not transcribed).
  const measured = Math.ceil(oggOpusSeconds(new Uint8Array(bytes)) ?? 0);
  if (measured > seconds) {
    const more = paid.reserve("transcription", measured - seconds);
    if ("refused" in more) {
      releaseAll();
      return notListened(more.refused);
    }
    holds.push(more.held);
  }
  try {
    const text = await services.transcriber.transcribe({
      bytes,
      mediaType: item.mediaType,
      fileName: recordingFileName(item.source, item.mediaType, item.fileName),
    });
    for (const hold of holds) hold.settle();
    result.attachments.push({
      ...common,
      key: stored.key,
      size: stored.size,
      text: text === "" ? "(nothing audible)" : text,
      transcribedBy: "transcription-api",
    });
    result.transcripts.push(text);
  } catch (error) {
    releaseAll();
    console.warn(error instanceof TranscriptionError ? error.message : "transcription failed");
    result.notices.push(`🎤 I could not transcribe the ${what}; please try again or write instead.`);
    result.placeholders.push(`[a ${what} that could not be transcribed]`);
  }
}

/** Stores a file in R2 unless it is there already; the caps are checked before any download. */
async function fetchOnce(
  services: IngestServices,
  file: TelegramFileRef,
  details: { mediaType: string; label: string; fileName?: string; keepBytes?: boolean },
): Promise<Stored> {
  const shelf = services.shelf;
  if (!shelf) return { kind: "failed", why: `I can't read ${details.label}: this bot has no file storage set up.` };
  const limit = Math.min(services.media.maxFileBytes, TELEGRAM_DOWNLOAD_LIMIT_BYTES);
  const tooLarge = (size: number | undefined) => {
    const over = size === undefined ? "" : `${capitalized(details.label)} is ${sizeText(size)}; `;
    return limit === TELEGRAM_DOWNLOAD_LIMIT_BYTES
      ? `${over}Telegram lets bots download files up to 20 MB, so I left it out.`
      : `${over}this bot reads files up to ${sizeText(limit)}, so I left it out.`;
  };
  if (file.size !== undefined && file.size > limit) return { kind: "failed", why: tooLarge(file.size) };
  const key = shelf.keyOf(file);
  // Without a bucket a file is read when a turn needs it: nothing to download now, unless its bytes are wanted.
  if (!details.keepBytes && (!shelf.keepsOriginals || (await shelf.has(key)))) {
    return { kind: "stored", key, size: file.size ?? 0 };
  }
  try {
    const { bytes } = await services.files.download(file.fileId, limit);
    await shelf.put(key, bytes, {
      mediaType: details.mediaType,
      ...(details.fileName ? { fileName: details.fileName } : {}),
    });
    return { kind: "stored", key, size: bytes.byteLength, ...(details.keepBytes ? { bytes } : {}) };
  } catch (error) {
    if (error instanceof FileDownloadError && error.reason === "too_large") {
      return { kind: "failed", why: tooLarge(file.size) };
    }
    // The error's text is ours (never the file URL), but log only its class and reason to be sure.
    console.warn(`file download failed: ${error instanceof FileDownloadError ? error.message : "storage error"}`);
    return { kind: "failed", why: `I could not download ${details.label} from Telegram; please send it again.` };
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
