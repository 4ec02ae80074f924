import type { Settings } from "../config/settings.ts";
import type { Env } from "../env.ts";
import type { BotApi } from "../telegram/bot-api.ts";
import { TelegramFiles } from "../telegram/files.ts";
import type { IngestServices } from "./ingest.ts";
import { type MediaShelf, R2Shelf, TelegramShelf } from "./shelf.ts";
import { Transcriber } from "./transcribe.ts";

/**
 * The MEDIA bucket, when the binding exists. Without it (R2 not switched on for the account) files are not kept: they
 * are read from Telegram again when a turn needs them.
 */
export function mediaBucket(env: Env): R2Bucket | undefined {
  const bucket: R2Bucket | undefined = env.MEDIA;
  return bucket;
}

/** Where a chat's files are: the bucket, or Telegram itself when there is none. */
export function mediaShelfOf(env: Env, settings: Settings, telegramApi: BotApi): MediaShelf {
  const bucket = mediaBucket(env);
  return bucket ? new R2Shelf(bucket) : new TelegramShelf(telegramFilesOf(settings, telegramApi));
}

/** Keeps a file a tool made (a generated image) in the MEDIA bucket under a new key; undefined without the bucket. */
export function generatedMediaStore(env: Env): (bytes: Uint8Array, mediaType: string) => Promise<string | undefined> {
  return async (bytes, mediaType) => {
    const bucket = mediaBucket(env);
    if (!bucket) return undefined;
    const key = `generated/${crypto.randomUUID()}`;
    await new R2Shelf(bucket).put(key, bytes, { mediaType });
    return key;
  };
}

/** What bringing a message's files in needs: where they are kept, Telegram's file download, the caps and a transcriber. */
export function ingestServicesOf(env: Env, settings: Settings, telegramApi: BotApi): IngestServices {
  return {
    shelf: mediaShelfOf(env, settings, telegramApi),
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
