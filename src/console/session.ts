import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { hmacSha256 } from "../config/hmac.ts";

const COOKIE = "console_session";
/** A session lasts half a day; signing in again is one paste of the token. */
const SESSION_MS = 12 * 60 * 60 * 1000;

/**
 * The key that signs session cookies: HMAC-SHA256 of a fixed label under ADMIN_TOKEN. Derived, not the token
 * itself, so the cookie's signature says nothing usable about the token; rotating ADMIN_TOKEN ends every session.
 */
function sessionKey(adminToken: string): Promise<Uint8Array> {
  return hmacSha256(adminToken, "telegram-edge-agent console session v1");
}

/** Sets the signed session cookie: HttpOnly, Secure, SameSite=Strict, only sent to /console. */
export async function startSession(c: Context, adminToken: string, now: number): Promise<void> {
  const expires = now + SESSION_MS;
  await setSignedCookie(c, COOKIE, `v1.${expires}`, await sessionKey(adminToken), {
    path: "/console",
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    maxAge: SESSION_MS / 1000,
  });
}

/** Whether the request carries a session cookie signed with the current token that has not expired. */
export async function hasSession(c: Context, adminToken: string, now: number): Promise<boolean> {
  const value = await getSignedCookie(c, await sessionKey(adminToken), COOKIE);
  const expires = typeof value === "string" ? /^v1\.(\d{13})$/.exec(value)?.[1] : undefined;
  return expires !== undefined && Number(expires) > now;
}

export function endSession(c: Context): void {
  deleteCookie(c, COOKIE, { path: "/console", secure: true, httpOnly: true, sameSite: "Strict" });
}
