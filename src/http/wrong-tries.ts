import type { Env } from "../env.ts";

/** A client that made too many wrong tries is refused this long, whatever it presents, in this isolate. */
const BLOCKED_MS = 60_000;
/** Without the rate-limit binding: this many wrong tries per client a minute, counted in this isolate. */
const LOCAL_LIMIT = 10;

const blockedUntil = new Map<string, number>();
const localTries = new Map<string, number[]>();

/** Who is trying: the client's address as Cloudflare saw it (one key for every request without one, e.g. in tests). */
export function clientOf(request: Request): string {
  return request.headers.get("cf-connecting-ip") ?? "unknown";
}

/** Whether the client is refused now for its earlier wrong tries (checked before its token is compared). */
export function isBlocked(client: string, now = Date.now()): boolean {
  const until = blockedUntil.get(client);
  if (until === undefined) return false;
  if (until > now) return true;
  blockedUntil.delete(client);
  return false;
}

/**
 * Counts a wrong admin token: through the Workers rate-limit binding (`ADMIN_WRONG_TRIES`, 10 a minute per client in
 * each location), else in this isolate. Past the limit the client is refused for a minute, its right token included,
 * so guessing does not pay. True when this try crossed the limit.
 */
export async function countWrongTry(env: Env, client: string, now = Date.now()): Promise<boolean> {
  let over: boolean;
  if (env.ADMIN_WRONG_TRIES) {
    over = !(await env.ADMIN_WRONG_TRIES.limit({ key: `admin:${client}` })).success;
  } else {
    const recent = (localTries.get(client) ?? []).filter((at) => now - at < 60_000);
    recent.push(now);
    localTries.set(client, recent);
    over = recent.length > LOCAL_LIMIT;
  }
  if (over) blockedUntil.set(client, now + BLOCKED_MS);
  // The maps stay small: a few thousand clients at most before the oldest entries go.
  if (blockedUntil.size > 5_000) blockedUntil.delete(blockedUntil.keys().next().value!);
  if (localTries.size > 5_000) localTries.delete(localTries.keys().next().value!);
  return over;
}
