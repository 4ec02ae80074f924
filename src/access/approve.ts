import { errorText } from "../lib/errors.ts";
import type { TelegramClient } from "../telegram/client.ts";
import { AccessStore } from "./access-store.ts";
import { type Pairing, PairingStore } from "./pairing-codes.ts";

export type ApproveResult = { kind: "approved"; pairing: Pairing } | { kind: "not_found" };

/**
 * Approves a waiting pairing code, from the console (admin API) or `/approve` in an admin's private chat: the chat
 * joins the approved list, the code is used up, and the chat is told it may talk now.
 */
export async function approvePairing(input: {
  kv: KVNamespace;
  telegram: TelegramClient | undefined;
  code: string;
  approvedBy: string;
  now: number;
}): Promise<ApproveResult> {
  const codes = new PairingStore(input.kv);
  const pairing = await codes.get(input.code, input.now);
  if (!pairing) return { kind: "not_found" };
  await new AccessStore(input.kv).approveChat(pairing.chatId, {
    ...(pairing.title ? { title: pairing.title } : {}),
    type: pairing.type,
    approvedBy: input.approvedBy,
  });
  await codes.delete(input.code);
  await input.telegram
    ?.sendPlain({ chatId: pairing.chatId }, "✅ This chat may now talk to the bot. Say hello!")
    .catch((error: unknown) => console.warn("telling a paired chat it was approved failed", errorText(error)));
  return { kind: "approved", pairing };
}
