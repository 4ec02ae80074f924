// Plain, erasable TypeScript: `npm run setup:telegram` imports this file under Node's type stripping.
import { hmacSha256 } from "../config/hmac.ts";

/** No 0/O, 1/I: a code read aloud or typed from a phone is not misread. 32 symbols, 5 bits each. */
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/**
 * The owner's setup code: derived from the webhook secret (HMAC-SHA256 of a fixed label), so `npm run
 * setup:telegram`, which has the secret, can print it and the Worker can check it without storing anything. It
 * works only while the bot has no admin; once its owner paired with it, it opens nothing.
 */
export async function setupCodeOf(webhookSecret: string): Promise<string> {
  const digest = await hmacSha256(webhookSecret, "owner setup code v1");
  return formatCode(digest.slice(0, 8));
}

/** `ABCD-EFGH`: one symbol per byte. */
export function formatCode(bytes: Uint8Array): string {
  const symbols = [...bytes].map((byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]!).join("");
  return `${symbols.slice(0, 4)}-${symbols.slice(4, 8)}`;
}
