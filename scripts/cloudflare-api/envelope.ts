/**
 * Cloudflare's API envelope: every answer of the v4 API is `{ success, errors: [{ code, message }], messages,
 * result }`, lists add `result_info`. The HTTP status says the kind of failure; `errors[].code` says which one, and is
 * what wrangler reads (e.g. 10007 "not found" for a Worker, 7404 for a D1 database, 10042 for R2 not enabled).
 */
interface CfError {
  code: number;
  message: string;
}

export interface ResultInfo {
  page?: number;
  per_page?: number;
  count: number;
  total_count?: number;
  cursor?: string;
}

/** What a handler answers: a JSON body (the envelope, or the containers API's own shape), or raw bytes. */
export interface Reply {
  status: number;
  body: unknown;
  /** Sent as is instead of JSON (a script's source, an object's bytes). */
  raw?: { bytes: Uint8Array | string; contentType: string };
  /** An ETag header (an upload's MD5, as R2 answers it). */
  etag?: string;
}

export function ok(result: unknown, resultInfo?: ResultInfo, status = 200): Reply {
  return {
    status,
    body: { success: true, errors: [], messages: [], result, ...(resultInfo ? { result_info: resultInfo } : {}) },
  };
}

export function fail(status: number, code: number, message: string): Reply {
  const error: CfError = { code, message };
  return { status, body: { success: false, errors: [error], messages: [], result: null } };
}

/** A list answer with Cloudflare's page-based `result_info` (`page`, `per_page`, `count`, `total_count`). */
export function page<T>(items: T[], query: URLSearchParams, defaultPerPage = 20): Reply {
  const perPage = Math.max(1, Number(query.get("per_page") ?? defaultPerPage) || defaultPerPage);
  const pageNumber = Math.max(1, Number(query.get("page") ?? 1) || 1);
  const slice = items.slice((pageNumber - 1) * perPage, pageNumber * perPage);
  return ok(slice, { page: pageNumber, per_page: perPage, count: slice.length, total_count: items.length });
}

export function raw(bytes: Uint8Array | string, contentType: string, status = 200): Reply {
  return { status, body: undefined, raw: { bytes, contentType } };
}
