import type { Context, Env, MiddlewareHandler } from "hono";
import { HttpError } from "./error.ts";

const encoder = new TextEncoder();

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerTokenOf(header: string | undefined | null): string | undefined {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
  return token === undefined || token === "" ? undefined : token;
}

/**
 * `Authorization: Bearer <token>` checked by `verify` before the handler runs: 401 when it is missing or refused.
 * The same check guards the admin API, the agent-tools route and the agent runner.
 */
export function requireBearer<E extends Env = Env>(
  verify: (presented: string, c: Context<E>) => boolean | Promise<boolean>,
): MiddlewareHandler<E> {
  return async (c, next) => {
    const presented = bearerTokenOf(c.req.header("authorization"));
    if (presented === undefined || !(await verify(presented, c))) {
      throw new HttpError(401, { code: "unauthorized", message: "Missing or wrong bearer token." });
    }
    await next();
  };
}

/**
 * Compares a presented secret with the expected one in constant time. Both are laid into buffers of one fixed size
 * (their length in the last two bytes), so neither the length nor the content of the expected secret leaks through
 * timing, and the buffers are compared in full. Secrets longer than the buffer (none of ours: Telegram's is at most
 * 256 characters) are compared as SHA-256 digests instead. This runs on every webhook request, where the two digests
 * it used to take were a noticeable part of a turn's CPU. (Plain code, not workerd's `timingSafeEqual`: the agent
 * runner in Node uses it too.)
 */
export async function secretsEqual(presented: string, expected: string): Promise<boolean> {
  // Two buffers for the whole process, used by each call before its first await and left zeroed: allocating two per
  // webhook request was most of this check's cost.
  const left = fixedBytes(presented, presentedBuffer);
  const right = fixedBytes(expected, expectedBuffer);
  const same = left && right ? sameBytes(left, right) : undefined;
  presentedBuffer.fill(0);
  expectedBuffer.fill(0);
  if (same !== undefined) return same;
  const [leftDigest, rightDigest] = await Promise.all([sha256(presented), sha256(expected)]);
  return sameBytes(leftDigest, rightDigest);
}

// Telegram's webhook secret is at most 256 characters of [A-Za-z0-9_-]; a longer admin token goes the digest way.
const FIXED_BYTES = 256;
const presentedBuffer = new Uint8Array(FIXED_BYTES + 2);
const expectedBuffer = new Uint8Array(FIXED_BYTES + 2);

/** `text` laid into `buffer` (all zeros), its length in the last two bytes; undefined when it does not fit. */
function fixedBytes(text: string, buffer: Uint8Array): Uint8Array | undefined {
  const { read, written } = encoder.encodeInto(text, buffer.subarray(0, FIXED_BYTES));
  if (read < text.length) return undefined;
  buffer[FIXED_BYTES] = written >> 8;
  buffer[FIXED_BYTES + 1] = written & 0xff;
  return buffer;
}

/** Every byte looked at, whatever the first difference: buffers of one length. */
function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  let difference = 0;
  for (let index = 0; index < left.length; index++) difference |= left[index]! ^ right[index]!;
  return difference === 0;
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}
