const encoder = new TextEncoder();

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first, so neither the length
 * nor the content of the expected secret leaks through timing.
 */
export async function secretsEqual(presented: string, expected: string): Promise<boolean> {
  const [left, right] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(presented)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(left, right);
}

/** A random secret for one agent run: 32 bytes, hex. */
export function newRunToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
