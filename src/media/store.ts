import { Buffer } from "node:buffer";

/** The R2 key of a file from Telegram: its `file_unique_id`, the same for every copy of the file, so it is stored once. */
export function telegramMediaKey(fileUniqueId: string): string {
  return `telegram/${fileUniqueId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/** Whether a file is already stored (a forwarded photo, a redelivered update): then it is not downloaded again. */
export async function isStored(bucket: R2Bucket, key: string): Promise<boolean> {
  return (await bucket.head(key)) !== null;
}

export async function storeMedia(
  bucket: R2Bucket,
  key: string,
  bytes: ArrayBuffer | Uint8Array,
  details: { mediaType: string; fileName?: string },
): Promise<void> {
  await bucket.put(key, bytes, {
    httpMetadata: { contentType: details.mediaType },
    ...(details.fileName ? { customMetadata: { fileName: details.fileName.slice(0, 300) } } : {}),
  });
}

/** A stored file's bytes, or undefined when it is gone. */
export async function readMedia(bucket: R2Bucket, key: string): Promise<ArrayBuffer | undefined> {
  const object = await bucket.get(key);
  return object ? object.arrayBuffer() : undefined;
}

export function toBase64(bytes: ArrayBuffer): string {
  return Buffer.from(bytes).toString("base64");
}
