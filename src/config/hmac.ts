// Plain, erasable TypeScript: `npm run setup:telegram` imports it (through src/access/setup-code.ts) under Node.

const encoder = new TextEncoder();

/** HMAC-SHA256 of a fixed label under a secret: a value derived from the secret that reveals nothing usable of it. */
export async function hmacSha256(secret: string, label: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(label)));
}
