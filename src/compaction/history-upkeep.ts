import { type ConfigReader, effectiveConfigOf } from "../config/config-store.ts";
import type { Settings } from "../config/settings.ts";
import type { ChatStores } from "../store/chat-stores.ts";
import type { SemanticIndex } from "../tools/semantic-index.ts";
import { embeddedThroughIdSlot } from "./summary-slots.ts";

/** What keeping the archive needs: the chat's state and config, and its key (its namespace in the vector index). */
export interface UpkeepContext {
  /** The chat's history by meaning, when a vector index is bound (its namespace is the chat key). */
  semanticIndex: SemanticIndex | undefined;
  settings: Settings;
  stores: ChatStores;
  configs: ConfigReader;
  chat: { id: number };
  chatKey: string;
  now: () => number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Archived rows one pass deletes at most (and whose vectors it deletes): a long archive shrinks over a few drains. */
const FORGET_PER_PASS = 1_000;
/** Messages one pass embeds at most: an index bound to a chat with a long past catches up over a few drains. */
const EMBED_PER_PASS = 200;

/**
 * After a drain, like compaction: archived history past the chat's retention is deleted (with its vectors), and the
 * messages the vector index has not seen yet are embedded into it, when one is bound. A failure waits for the next
 * drain; nothing here is needed for a turn to work.
 */
export async function keepHistory(ctx: UpkeepContext): Promise<void> {
  const { stores } = ctx;
  const semantic = ctx.semanticIndex;
  const { config } = await effectiveConfigOf(ctx.configs, ctx.chat.id, ctx.settings);
  if (config.historyRetentionDays !== undefined) {
    const forgotten = stores.historySearch.forgetArchivedBefore(
      ctx.now() - config.historyRetentionDays * DAY_MS,
      FORGET_PER_PASS,
    );
    if (semantic && forgotten.length > 0) await semantic.remove(forgotten);
  }
  if (semantic) await embedNew(stores, semantic);
}

async function embedNew(stores: ChatStores, semantic: SemanticIndex): Promise<void> {
  const rows = stores.historySearch.after(stores.meta.get(embeddedThroughIdSlot) ?? 0, EMBED_PER_PASS);
  if (rows.length === 0) return;
  await semantic.add(rows);
  stores.meta.set(embeddedThroughIdSlot, rows.at(-1)!.id);
}
