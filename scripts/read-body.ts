import type { IncomingMessage } from "node:http";

/** A Node HTTP request's whole body as text (the local stand-ins and fakes read small JSON bodies). */
export async function readBody(request: IncomingMessage): Promise<string> {
  return (await readBodyBytes(request)).toString("utf8");
}

/** A Node HTTP request's whole body as bytes (uploads: a voice message, a photo). */
export function readBodyBytes(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

/** A file field of a multipart upload, as the stand-ins and fakes keep it. */
export interface UploadedFile {
  fileName: string;
  type: string;
  bytes: Uint8Array;
}

/**
 * A `multipart/form-data` body's fields: text as text, files as `UploadedFile`. A field whose value is
 * `attach://<name>` is given the file uploaded under that name, as Telegram reads grammY's uploads. Parsed here because
 * Node's own `Request.formData()` refuses grammY's compact part headers (`content-disposition:form-data;name="x"`).
 */
export function multipartFields(contentType: string, bytes: Uint8Array): Record<string, string | UploadedFile> {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) throw new Error("multipart body without a boundary");
  const body = Buffer.from(bytes);
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Record<string, string | UploadedFile> = {};
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    // Each part: CRLF, headers, a blank line, the content, CRLF before the next delimiter.
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    const headers = part.subarray(0, split).toString("utf8");
    const content = part.subarray(split + 4);
    const name = /[;\s]name="?([^";\r\n]+)"?/i.exec(headers)?.[1];
    const fileName = /[;\s]filename="?([^";\r\n]+)"?/i.exec(headers)?.[1];
    const type = /content-type:\s*([^\r\n;]+)/i.exec(headers)?.[1]?.trim() ?? "application/octet-stream";
    if (name !== undefined) {
      parts[name] =
        fileName === undefined ? content.toString("utf8") : { fileName, type, bytes: new Uint8Array(content) };
    }
    at = next;
  }
  const attached = new Set<string>();
  const fields: Record<string, string | UploadedFile> = {};
  for (const [name, value] of Object.entries(parts)) {
    const reference = typeof value === "string" ? /^attach:\/\/(.+)$/.exec(value)?.[1] : undefined;
    const file = reference === undefined ? undefined : parts[reference];
    if (reference !== undefined && file !== undefined) attached.add(reference);
    fields[name] = file ?? value;
  }
  for (const name of attached) delete fields[name];
  return fields;
}
