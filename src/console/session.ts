import type { Context } from "hono";
import { hmacSha256 } from "../config/hmac.ts";

const COOKIE = "console_session";
/** A session lasts half a day; signing in again is one paste of the token. */
const SESSION_MS = 12 * 60 * 60 * 1000;
/** Sent only to the console's pages, never readable by script, never sent cross-site. */
const ATTRIBUTES = "Path=/console; HttpOnly; Secure; SameSite=Strict";
const encoder = new TextEncoder();

/**
 * The key that signs session cookies: HMAC-SHA256 of a fixed label under ADMIN_TOKEN. Derived, not the token
 * itself, so the cookie's signature says nothing usable about the token; rotating ADMIN_TOKEN ends every session.
 */
async function sessionKey(adminToken: string): Promise<CryptoKey> {
  const key = await hmacSha256(adminToken, "telegram-edge-agent console session v1");
  return crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

/**
 * Sets the signed session cookie: `v1.<expiry, epoch ms>.<HMAC-SHA256 of that, base64>`, URI-encoded (the form hono's
 * signed cookies had, so sessions made before are still good). Hand-written on WebCrypto rather than hono/cookie,
 * whose signed-cookie helpers were 1.5 KiB gzip of the Worker's 250 for this one cookie.
 */
export async function startSession(c: Context, adminToken: string, now: number): Promise<void> {
  const value = `v1.${now + SESSION_MS}`;
  const signature = await crypto.subtle.sign("HMAC", await sessionKey(adminToken), encoder.encode(value));
  const signed = encodeURIComponent(`${value}.${btoa(String.fromCharCode(...new Uint8Array(signature)))}`);
  c.header("set-cookie", `${COOKIE}=${signed}; Max-Age=${SESSION_MS / 1000}; ${ATTRIBUTES}`, { append: true });
}

/** Whether the request carries a session cookie signed with the current token that has not expired. */
export async function hasSession(c: Context, adminToken: string, now: number): Promise<boolean> {
  const signed = /^(v1\.(\d{13}))\.([A-Za-z0-9+/]{43}=)$/.exec(cookieValue(c.req.header("cookie"), COOKIE) ?? "");
  if (!signed || Number(signed[2]) <= now) return false;
  const signature = Uint8Array.from(atob(signed[3]!), (char) => char.charCodeAt(0));
  // WebCrypto's verify compares in constant time.
  return crypto.subtle.verify("HMAC", await sessionKey(adminToken), signature, encoder.encode(signed[1]));
}

export function endSession(c: Context): void {
  c.header("set-cookie", `${COOKIE}=; Max-Age=0; ${ATTRIBUTES}`, { append: true });
}

/** The first cookie of that name in a Cookie header, URI-decoded; undefined when absent or not decodable. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of header?.split(";") ?? []) {
    const equals = pair.indexOf("=");
    if (equals < 0 || pair.slice(0, equals).trim() !== name) continue;
    try {
      return decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}
