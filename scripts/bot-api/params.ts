import { METHOD_TABLE } from "./method-table.ts";
import { isRecord } from "./shape-check.ts";
import { canonicalMethod } from "./vocabulary.ts";

/**
 * A Bot API call's parameters, however they came: a JSON body, a form (urlencoded, or multipart as grammY sends
 * uploads) or the query string. Form values are strings; like Telegram, a field whose type is not a string is read
 * from its JSON (`reply_markup`, numbers, booleans). An uploaded file becomes `{ file: <name>, size: <bytes> }`, also
 * where a field names it with `attach://<part>` (the attached part itself is not a parameter).
 */
export async function readParams(
  method: string,
  body: string,
  contentType: string | undefined,
  query: URLSearchParams,
): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = Object.fromEntries(query);
  const type = (contentType ?? "").toLowerCase();
  if (body.length > 0) {
    if (type.startsWith("multipart/form-data")) Object.assign(params, multipart(body, contentType!));
    else if (type.startsWith("application/x-www-form-urlencoded"))
      Object.assign(params, Object.fromEntries(new URLSearchParams(body)));
    else {
      const json = parseJson(body);
      if (isRecord(json)) Object.assign(params, json);
    }
  }
  return decodeStrings(method, params);
}

/**
 * A multipart body read as leniently as Telegram reads it (grammY writes `name=x;filename=y` without spaces or
 * quotes, which Node's own FormData parser refuses).
 */
function multipart(body: string, contentType: string): Record<string, unknown> {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return {};
  const delimiter = `--${boundary[1] ?? boundary[2]}`;
  const fields: Record<string, unknown> = {};
  const files = new Map<string, { file: string; size: number }>();
  for (const part of body.split(delimiter).slice(1)) {
    if (part.startsWith("--")) break;
    const headerEnd = part.indexOf("\r\n\r\n");
    if (headerEnd === -1) continue;
    const headers = part.slice(0, headerEnd);
    const value = part.slice(headerEnd + 4).replace(/\r\n$/, "");
    const name = /;\s*name=(?:"([^"]*)"|([^;\r\n]*))/i.exec(headers);
    if (!name) continue;
    const fieldName = name[1] ?? name[2]!.trim();
    const filename = /;\s*filename=(?:"([^"]*)"|([^;\r\n]*))/i.exec(headers);
    if (filename) files.set(fieldName, { file: filename[1] ?? filename[2]!.trim(), size: Buffer.byteLength(value) });
    else fields[fieldName] = value;
  }
  for (const [name, value] of Object.entries(fields)) {
    const part = typeof value === "string" && value.startsWith("attach://") ? value.slice("attach://".length) : "";
    const attached = files.get(part);
    if (attached) {
      fields[name] = attached;
      files.delete(part);
    }
  }
  for (const [name, file] of files) fields[name] = file;
  return fields;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function decodeStrings(requested: string, params: Record<string, unknown>): Record<string, unknown> {
  const fields = METHOD_TABLE.methods[canonicalMethod(requested) ?? ""] ?? {};
  return Object.fromEntries(
    Object.entries(params).map(([name, value]) => {
      const shape = fields[name]?.shape;
      if (typeof value !== "string" || !shape || shape.kind === "string" || shape.kind === "any") return [name, value];
      if (shape.kind === "union" && shape.of.some((member) => member.kind === "string")) {
        // number | string (chat_id): a number when it is one.
        return [name, /^-?\d+$/.test(value) ? Number(value) : value];
      }
      return [name, parseJson(value) ?? value];
    }),
  );
}
