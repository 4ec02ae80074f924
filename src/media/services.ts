import type { Settings } from "../config/settings.ts";
import type { BotApi } from "../telegram/bot-api.ts";
import { TelegramFiles } from "../telegram/files.ts";
import type { IngestServices } from "./ingest.ts";
import { type MediaShelf, R2Shelf, TelegramShelf } from "./shelf.ts";
import { Transcriber } from "./transcribe.ts";

/** Keeps a file a tool made; its key, or undefined without a bucket. */
export type GeneratedStore = (bytes: Uint8Array, mediaType: string) => Promise<string | undefined>;

/** Where a chat's files are: the bucket, or Telegram itself when there is none. */
function mediaShelfOf(bucket: R2Bucket | undefined, settings: Settings, telegramApi: BotApi): MediaShelf {
  return bucket ? new R2Shelf(bucket) : new TelegramShelf(telegramFilesOf(settings, telegramApi));
}

/** Keeps a file a tool made (a generated image) in the MEDIA bucket under a new key; undefined without the bucket. */
export function generatedMediaStore(bucket: R2Bucket | undefined): GeneratedStore {
  return async (bytes, mediaType) => {
    if (!bucket) return undefined;
    const key = `generated/${crypto.randomUUID()}`;
    await new R2Shelf(bucket).put(key, bytes, { mediaType });
    return key;
  };
}

/** Reads a generated image back from the media bucket by its key (an outbox photo that waited). */
export function generatedMediaReader(bucket: R2Bucket | undefined): (key: string) => Promise<Uint8Array | undefined> {
  return async (key) => {
    const bytes = bucket ? await new R2Shelf(bucket).get(key) : undefined;
    return bytes === undefined ? undefined : new Uint8Array(bytes);
  };
}

/** What bringing a message's files in needs: where they are kept, Telegram's file download, the caps and a transcriber. */
export function ingestServicesOf(
  bucket: R2Bucket | undefined,
  settings: Settings,
  telegramApi: BotApi,
): IngestServices {
  return {
    shelf: mediaShelfOf(bucket, settings, telegramApi),
    files: telegramFilesOf(settings, telegramApi),
    media: settings.media,
    transcriber: transcriberOf(settings),
  };
}

function telegramFilesOf(settings: Settings, telegramApi: BotApi): TelegramFiles {
  return new TelegramFiles({
    api: telegramApi,
    botToken: settings.botToken ?? "",
    apiBaseUrl: settings.telegramApiBaseUrl,
  });
}

function transcriberOf(settings: Settings): Transcriber | undefined {
  const transcription = settings.transcription;
  if (transcription.kind === "off" || !settings.openaiApiKey) return undefined;
  return new Transcriber({
    apiKey: settings.openaiApiKey,
    baseUrl: transcription.baseUrl ?? settings.openaiBaseUrl,
    model: transcription.model,
    timeoutMs: settings.providerTimeoutMs,
  });
}
