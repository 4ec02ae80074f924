/** What a run token says: which chat's which run may call tools (and, through the proxy, the model), until when. */
export interface RunClaims {
  chatKey: string;
  runId: string;
  /** Epoch ms. */
  expiresAt: number;
}

const VERSION = "v1";
const encoder = new TextEncoder();
/** The HMAC key's type, named without the DOM's `CryptoKey` (the container's runner imports this file too). */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
const keys = new Map<string, Promise<HmacKey>>();

/**
 * A self-verifying token for one agent run: the claims and an HMAC-SHA256 over them, keyed from the bot's token (the
 * deployment's master secret) with a label of its own. The Worker checks it before it touches any chat object; the
 * chat object then checks that the run is the one running.
 */
export async function mintRunToken(secret: string, claims: RunClaims): Promise<string> {
  const body = `${VERSION}.${base64Url(encoder.encode(JSON.stringify([claims.chatKey, claims.runId, claims.expiresAt])))}`;
  const signature = await crypto.subtle.sign("HMAC", await keyFor(secret), encoder.encode(body));
  return `${body}.${base64Url(new Uint8Array(signature))}`;
}

/** The claims of a token this deployment minted and that has not expired, or undefined. */
export async function verifyRunToken(secret: string, token: string, now: number): Promise<RunClaims | undefined> {
  const [version, payload, signature, ...rest] = token.split(".");
  if (version !== VERSION || payload === undefined || signature === undefined || rest.length > 0) return undefined;
  const signatureBytes = fromBase64Url(signature);
  if (!signatureBytes) return undefined;
  const valid = await crypto.subtle.verify(
    "HMAC",
    await keyFor(secret),
    signatureBytes,
    encoder.encode(`${version}.${payload}`),
  );
  if (!valid) return undefined;
  const bytes = fromBase64Url(payload);
  if (!bytes) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  if (!Array.isArray(claims) || claims.length !== 3) return undefined;
  const [chatKey, runId, expiresAt] = claims;
  if (typeof chatKey !== "string" || typeof runId !== "string" || typeof expiresAt !== "number") return undefined;
  return expiresAt > now ? { chatKey, runId, expiresAt } : undefined;
}

const MODEL_KEY = "m1";

/**
 * The key an agent's CLI presents to the model proxy: its chat, and a one-way digest of the run's token. The CLI (and
 * so the agent's shell, which inherits its environment) holds only this; it opens the model proxy for the run the
 * Worker opened with it, and nothing else: the tools route wants the token itself, which cannot be got back from it.
 */
export async function modelKeyOf(token: string, chatKey: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(`model-key:${token}`));
  return `${MODEL_KEY}.${base64Url(encoder.encode(chatKey))}.${base64Url(new Uint8Array(digest))}`;
}

/** The chat a model key names (not proof of anything: the ledger decides whether its run is open), or undefined. */
export function chatKeyOfModelKey(key: string): string | undefined {
  const [kind, chat, digest, ...rest] = key.split(".");
  if (kind !== MODEL_KEY || chat === undefined || digest === undefined || rest.length > 0) return undefined;
  const bytes = fromBase64Url(chat);
  return bytes && bytes.length > 0 && bytes.length <= 200 ? new TextDecoder().decode(bytes) : undefined;
}

/** The ledger's key for a run: a digest of its token, so the token itself is stored nowhere. */
export async function runKeyOf(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`model-proxy:${token}`));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function keyFor(secret: string): Promise<HmacKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", encoder.encode(`agent-run-token:${secret}`))
      .then((material) =>
        crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]),
      );
    if (keys.size > 4) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  } catch {
    return undefined;
  }
}
