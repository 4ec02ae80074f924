import * as z from "zod";
import { formatCode } from "./setup-code.ts";

const PREFIX = "pairing:";
export const PAIRING_TTL_MS = 10 * 60 * 1000;
export const PAIRING_CODE = /^[A-Z2-9]{4}-[A-Z2-9]{4}$/;

const pairingSchema = z.object({
  chatId: z.number().int(),
  type: z.enum(["private", "group", "supergroup"]),
  title: z.string().max(256).optional(),
  userId: z.number().int().optional(),
  userName: z.string().max(256).optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
});
export type Pairing = z.infer<typeof pairingSchema>;

/** `ABCD-EFGH` from random bytes (8 symbols of 32: 40 bits). */
export function newPairingCode(
  random: (bytes: Uint8Array) => Uint8Array = (bytes) => crypto.getRandomValues(bytes),
): string {
  return formatCode(random(new Uint8Array(8)));
}

/** Upper-cased, with the dash where it belongs: `abcdefgh` and `abcd-efgh` both name ABCD-EFGH. */
export function normalizeCode(text: string): string | undefined {
  const compact = text.trim().toUpperCase().replace(/[\s-]/g, "");
  if (compact.length !== 8) return undefined;
  const code = `${compact.slice(0, 4)}-${compact.slice(4)}`;
  return PAIRING_CODE.test(code) ? code : undefined;
}

/** Codes waiting for approval in KV, each expiring on its own after ten minutes. */
export class PairingStore {
  constructor(private readonly kv: KVNamespace) {}

  async put(code: string, pairing: Pairing): Promise<void> {
    // KV's smallest expiration is 60 s; the record's own expiresAt is what counts.
    await this.kv.put(PREFIX + code, JSON.stringify(pairing), {
      expirationTtl: Math.max(60, Math.ceil(PAIRING_TTL_MS / 1000)),
      metadata: pairing,
    });
  }

  async get(code: string, now: number): Promise<Pairing | undefined> {
    const raw = await this.kv.get(PREFIX + code, "text");
    if (raw === null) return undefined;
    const parsed = pairingSchema.safeParse(safeJson(raw));
    return parsed.success && parsed.data.expiresAt > now ? parsed.data : undefined;
  }

  async delete(code: string): Promise<void> {
    await this.kv.delete(PREFIX + code);
  }

  /** Codes still waiting, from the list's metadata (no read per code). */
  async pending(now: number): Promise<(Pairing & { code: string })[]> {
    const page = await this.kv.list({ prefix: PREFIX, limit: 100 });
    return page.keys.flatMap((key) => {
      const parsed = pairingSchema.safeParse(key.metadata);
      const code = key.name.slice(PREFIX.length);
      return parsed.success && parsed.data.expiresAt > now ? [{ code, ...parsed.data }] : [];
    });
  }
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
