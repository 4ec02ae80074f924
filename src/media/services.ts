import type { Api } from "grammy/web";
import type { Settings } from "../config/settings.ts";
import type { Env } from "../env.ts";
import { TelegramFiles } from "../telegram/files.ts";
import type { IngestServices } from "./ingest.ts";
import { storeMedia } from "./store.ts";
import { Transcriber } from "./transcribe.ts";

/** The MEDIA bucket, when the binding exists (a deployment without R2 reads no files, and says so). */
export function mediaBucket(env: Env): R2Bucket | undefined {
  const bucket: R2Bucket | undefined = env.MEDIA;
  return bucket;
}

/** Keeps a file a tool made (a generated image) in the MEDIA bucket under a new key; undefined without the bucket. */
export function generatedMediaStore(env: Env): (bytes: Uint8Array, mediaType: string) => Promise<string | undefined> {
  return async (bytes, mediaType) => {
    const bucket = mediaBucket(env);
    if (!bucket) return undefined;
    const key = `generated/${crypto.randomUUID()}`;
    await storeMedia(bucket, key, bytes, { mediaType });
    return key;
  };
}

/** What bringing a message's files in needs: the bucket, Telegram's file download, the caps and a transcriber. */
export function ingestServicesOf(env: Env, settings: Settings, telegramApi: Api): IngestServices {
  return {
    bucket: mediaBucket(env),
    files: new TelegramFiles({
      api: telegramApi,
      botToken: settings.botToken ?? "",
      apiBaseUrl: settings.telegramApiBaseUrl,
    }),
    media: settings.media,
    transcriber: transcriberOf(settings),
  };
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
