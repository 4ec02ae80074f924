import type { TelegramClient } from "../telegram/client.ts";
import { AccessStore } from "./access-store.ts";
import { type ApproveResult, approvePairing } from "./approve.ts";
import { PairingStore } from "./pairing-codes.ts";

/** What /pair and /approve work with: the access record, the codes waiting, and approving one. */
export interface PairingAccess {
  access(): AccessStore;
  codes(): PairingStore;
  approve(code: string, approvedBy: string): Promise<ApproveResult>;
}

/** Pairing over the KV namespace the access record is kept in (built where the binding is known). */
export function pairingAccessOf(kv: KVNamespace, telegram: TelegramClient, now: () => number): PairingAccess {
  return {
    access: () => new AccessStore(kv, now),
    codes: () => new PairingStore(kv),
    approve: (code, approvedBy) => approvePairing({ kv, telegram, code, approvedBy, now: now() }),
  };
}
