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
 * Compares a presented secret with the expected one in constant time. Both are hashed first, so neither the length
 * nor the content of the expected secret leaks through timing; the fixed-length digests are compared in full.
 */
export async function secretsEqual(
  presented: string,
  expected: string,
  { expectedIsLongLived = true }: { expectedIsLongLived?: boolean } = {},
): Promise<boolean> {
  const [left, right] = await Promise.all([digestOf(presented, false), digestOf(expected, expectedIsLongLived)]);
  let difference = 0;
  for (let index = 0; index < left.length; index++) difference |= left[index]! ^ right[index]!;
  return difference === 0;
}

/** Digests of long-lived expected secrets (the webhook secret, the admin token), per isolate; a few at most. */
const remembered = new Map<string, Promise<Uint8Array>>();
const MAX_REMEMBERED = 8;

function digestOf(text: string, remember: boolean): Promise<Uint8Array> {
  if (!remember) return sha256(text);
  let known = remembered.get(text);
  if (!known) {
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    known = sha256(text);
    remembered.set(text, known);
  }
  return known;
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}
