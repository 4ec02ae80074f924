const encoder = new TextEncoder();

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first, so neither the length
 * nor the content of the expected secret leaks through timing.
 */
export async function secretsEqual(
  presented: string,
  expected: string,
  { expectedIsLongLived = true }: { expectedIsLongLived?: boolean } = {},
): Promise<boolean> {
  const expectedDigest = expectedIsLongLived ? digestOf(expected) : digest(expected);
  const [left, right] = await Promise.all([digest(presented), expectedDigest]);
  return crypto.subtle.timingSafeEqual(left, right);
}

function digest(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

/** The digests of the long-lived secrets (the webhook secret, the admin token), per isolate. Per-run tokens are not kept. */
const expectedDigests = new Map<string, Promise<ArrayBuffer>>();

function digestOf(secret: string): Promise<ArrayBuffer> {
  let known = expectedDigests.get(secret);
  if (!known) {
    known = digest(secret);
    expectedDigests.set(secret, known);
  }
  return known;
}

/** A random secret for one agent run: 32 bytes, hex. */
export function newRunToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
