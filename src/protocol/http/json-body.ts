import type { Env, MiddlewareHandler } from "hono";
import type * as z from "zod";
import { describeIssues, issueDetails } from "../issues.ts";
import { utf8Bytes } from "../json-size.ts";
import { HttpError } from "./error.ts";

export interface JsonBodyOptions {
  /** Bodies over this many bytes are refused with a 413 before they are read whole. */
  maxBytes: number;
  /** The error code of a body that is JSON but not what the schema wants (default `invalid_request`). */
  invalidCode?: string;
  /** Said before the schema's complaints, e.g. "Not a Telegram update". */
  invalidMessage?: string;
}

/**
 * The one way a JSON body enters: a JSON content type (415 otherwise), at most `maxBytes` bytes (413, checked
 * against Content-Length before reading and counted again as the bytes arrive), JSON (400 `invalid_json`), and valid for `schema` (400 with a
 * `details` entry per bad field). The handler reads the result with `c.req.valid("json")`.
 */
export function jsonBody<Schema extends z.ZodType, E extends Env = Env, P extends string = string>(
  schema: Schema,
  options: JsonBodyOptions,
): MiddlewareHandler<E, P, { in: { json: z.input<Schema> }; out: { json: z.output<Schema> } }> {
  return async (c, next) => {
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type)) {
      throw new HttpError(415, { code: "unsupported_media_type", message: "Send the body as application/json." });
    }
    const text = await textWithin(c.req.raw, options.maxBytes);
    if (text === "too_large") {
      throw new HttpError(413, { code: "too_large", message: `The body is larger than ${options.maxBytes} bytes.` });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new HttpError(400, { code: "invalid_json", message: "The body is not JSON.", cause: error });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const prefix = options.invalidMessage ? `${options.invalidMessage}: ` : "";
      throw new HttpError(400, {
        code: options.invalidCode ?? "invalid_request",
        message: `${prefix}${describeIssues(parsed.error, 10)}`,
        details: issueDetails(parsed.error),
      });
    }
    c.req.addValidatedData("json", parsed.data as object);
    await next();
  };
}

/**
 * A body within `maxBytes`, as text. With a Content-Length (HTTP framing holds the body to it) the runtime reads and
 * decodes it in one native call, which costs less CPU than reading bytes and decoding them here.
 */
async function textWithin(request: Request, maxBytes: number): Promise<string | "too_large"> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (!Number.isFinite(declared) || declared > maxBytes) {
    const bytes = await readWithin(request, maxBytes);
    return bytes === "too_large" ? bytes : new TextDecoder().decode(bytes);
  }
  const text = await request.text();
  // Framing holds a body from the network to its Content-Length; one built in-process can still lie. A UTF-16 unit is
  // at most 3 bytes of UTF-8, so a short text needs no count.
  return text.length * 3 <= maxBytes || utf8Bytes(text) <= maxBytes ? text : "too_large";
}

/**
 * A request's or response's body within `maxBytes`: a declared Content-Length over the limit is refused before
 * reading; a body without one is read chunk by chunk and given up as soon as it passes the limit.
 */
export async function readWithin(request: Request | Response, maxBytes: number): Promise<Uint8Array | "too_large"> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    return "too_large";
  }
  if (!request.body) return new Uint8Array(0);
  // HTTP framing holds a body to its declared length, so one native read is safe and costs less CPU than a loop of
  // chunk reads.
  if (Number.isFinite(declared)) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    return bytes.byteLength > maxBytes ? "too_large" : bytes;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return "too_large";
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
