import { readWithin } from "../protocol/http/json-body.ts";
import type { BotApi } from "./bot-api.ts";

export interface TelegramFilesOptions {
  api: BotApi;
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
    let bytes: Uint8Array | "too_large";
    try {
      bytes = await readWithin(response, maxBytes);
    } catch {
      throw new FileDownloadError("the download broke off", "unavailable");
    }
    if (bytes === "too_large") throw new FileDownloadError("the file is over the limit", "too_large");
    return {
      // A view of a larger chunk is copied, so that the buffer holds exactly the file.
      bytes:
        bytes.buffer instanceof ArrayBuffer && bytes.byteLength === bytes.buffer.byteLength
          ? bytes.buffer
          : bytes.slice().buffer,
      contentType: response.headers.get("content-type") ?? undefined,
    };
  }
}
