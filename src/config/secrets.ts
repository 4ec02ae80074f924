const encoder = new TextEncoder();

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first, so neither the length
 * nor the content of the expected secret leaks through timing.
 */
export async function secretsEqual(presented: string, expected: string): Promise<boolean> {
  const [left, right] = await Promise.all([crypto.subtle.digest("SHA-256", encoder.encode(presented)), digestOf(expected)]);
  return crypto.subtle.timingSafeEqual(left, right);
}

/** The expected secrets' digests, per isolate (a handful: the webhook secret, the admin token). */
const expectedDigests = new Map<string, Promise<ArrayBuffer>>();

function digestOf(secret: string): Promise<ArrayBuffer> {
  let digest = expectedDigests.get(secret);
  if (!digest) {
    digest = crypto.subtle.digest("SHA-256", encoder.encode(secret));
    // Per-run tokens are compared once or a few times; do not keep them.
    if (expectedDigests.size < 16) expectedDigests.set(secret, digest);
  }
  return digest;
}

/** A random secret for one agent run: 32 bytes, hex. */
export function newRunToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
