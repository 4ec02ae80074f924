import type { Api } from "grammy/web";

export interface TelegramFilesOptions {
  api: Api;
  botToken: string;
  apiBaseUrl: string;
}

/** What went wrong fetching a file, in words that may be shown and logged: never the file URL, which holds the token. */
export class FileDownloadError extends Error {
  override readonly name = "FileDownloadError";
  constructor(
    message: string,
    readonly reason: "too_large" | "unavailable",
  ) {
    super(message);
  }
}

/**
 * Downloads files users sent: `getFile` names the file's path, and the file comes from
 * `<api root>/file/bot<token>/<path>`. That URL carries the bot token, so it stays inside this function: it is not
 * returned, logged or put into an error (a failure's own text is replaced by a fixed one).
 */
export class TelegramFiles {
  constructor(private readonly options: TelegramFilesOptions) {}

  async download(fileId: string, maxBytes: number): Promise<{ bytes: ArrayBuffer; contentType: string | undefined }> {
    let filePath: string | undefined;
    let announcedSize: number | undefined;
    try {
      const file = await this.options.api.getFile(fileId);
      filePath = file.file_path;
      announcedSize = file.file_size;
    } catch {
      throw new FileDownloadError("Telegram did not give the file (getFile failed)", "unavailable");
    }
    if (announcedSize !== undefined && announcedSize > maxBytes) {
      throw new FileDownloadError(`the file is ${announcedSize} bytes, over the limit`, "too_large");
    }
    if (!filePath) throw new FileDownloadError("Telegram gave no path for the file", "unavailable");
    const url = `${this.options.apiBaseUrl}/file/bot${this.options.botToken}/${filePath}`;
    let response: Response;
    try {
      response = await fetch(url);
    } catch {
      throw new FileDownloadError("the file could not be downloaded (network)", "unavailable");
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new FileDownloadError(`the file could not be downloaded (HTTP ${response.status})`, "unavailable");
    }
    const length = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(length) && length > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new FileDownloadError(`the file is ${length} bytes, over the limit`, "too_large");
    }
    return {
      bytes: await readAtMost(response.body, maxBytes),
      contentType: response.headers.get("content-type") ?? undefined,
    };
  }
}

/** Reads a body up to `maxBytes`; a longer one is cut off and refused. */
async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<ArrayBuffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new FileDownloadError("the file is over the limit", "too_large");
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof FileDownloadError) throw error;
    throw new FileDownloadError("the download broke off", "unavailable");
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes.buffer;
}
