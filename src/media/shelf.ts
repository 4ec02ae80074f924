import { TELEGRAM_DOWNLOAD_LIMIT_BYTES } from "../config/settings.ts";
import type { TelegramFiles } from "../telegram/files.ts";
import type { TelegramFileRef } from "../telegram/incoming-message.ts";
import { isStored, readMedia, storeMedia, telegramMediaKey } from "./store.ts";

/**
 * Where the files of a chat's messages are kept: the MEDIA bucket (R2) keeps originals once, by `file_unique_id`;
 * without R2 (an account that has not switched it on, e.g. on Workers Free) nothing is kept and a file is read from
 * Telegram again when a turn needs it (its `file_id` stays valid for the bot), and a generated image is sent but not kept.
 */
export interface MediaShelf {
  readonly keepsOriginals: boolean;
  /** The key a file from Telegram is known by in history. */
  keyOf(file: TelegramFileRef): string;
  /** Whether the original is there already (then it is not downloaded again). */
  has(key: string): Promise<boolean>;
  /** Keeps a file (a no-op where originals are not kept). */
  put(key: string, bytes: ArrayBuffer | Uint8Array, details: { mediaType: string; fileName?: string }): Promise<void>;
  /** A file's bytes, or undefined when it is gone. */
  get(key: string): Promise<ArrayBuffer | undefined>;
}

export class R2Shelf implements MediaShelf {
  readonly keepsOriginals = true;
  private readonly bucket: R2Bucket;

  constructor(bucket: R2Bucket) {
    this.bucket = bucket;
  }

  keyOf(file: TelegramFileRef): string {
    return telegramMediaKey(file.fileUniqueId);
  }

  has(key: string): Promise<boolean> {
    return isStored(this.bucket, key);
  }

  put(key: string, bytes: ArrayBuffer | Uint8Array, details: { mediaType: string; fileName?: string }): Promise<void> {
    return storeMedia(this.bucket, key, bytes, details);
  }

  get(key: string): Promise<ArrayBuffer | undefined> {
    return readMedia(this.bucket, key);
  }
}

/** Keys of files read from Telegram each time: the file's `file_id` (which `getFile` takes) after this prefix. */
const TELEGRAM_FILE = "telegram-file/";

export class TelegramShelf implements MediaShelf {
  readonly keepsOriginals = false;
  private readonly files: TelegramFiles;
  private readonly maxBytes: number;

  constructor(files: TelegramFiles, maxBytes = TELEGRAM_DOWNLOAD_LIMIT_BYTES) {
    this.files = files;
    this.maxBytes = maxBytes;
  }

  keyOf(file: TelegramFileRef): string {
    return TELEGRAM_FILE + file.fileId;
  }

  async has(): Promise<boolean> {
    return false;
  }

  async put(): Promise<void> {}

  async get(key: string): Promise<ArrayBuffer | undefined> {
    // A key of the bucket (a file stored before R2 went away, a generated image) has nothing to read here.
    if (!key.startsWith(TELEGRAM_FILE)) return undefined;
    try {
      return (await this.files.download(key.slice(TELEGRAM_FILE.length), this.maxBytes)).bytes;
    } catch {
      return undefined;
    }
  }
}
