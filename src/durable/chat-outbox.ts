import type { Settings } from "../config/settings.ts";
import { WaitingOutboxes } from "../config/waiting-outboxes.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { Outbox } from "../reply/outbox.ts";
import { outboxDroppedSlot, outboxMarkedSlot, richRefusedSlot, telegramRefusedSlot } from "../reply/reply-slots.ts";
import { richRefusal } from "../reply/rich-refusal.ts";
import type { ChatStores } from "../store/chat-stores.ts";
import type { TelegramClient } from "../telegram/client.ts";

/** While messages wait, `/health`'s count of them is refreshed at most once a minute (each refresh is a KV write). */
const MARK_INTERVAL_MS = 60_000;

export interface ChatOutboxOptions {
  stores: ChatStores;
  telegram: TelegramClient;
  settings: Settings;
  kv: KVNamespace;
  /** This chat object's name, which `/health`'s marker is kept under. */
  chatKey: () => string;
  /** Sets the alarm for what is due next (the outbox's next try among it), unless a drain runs and will. */
  replan: () => Promise<void>;
  now?: () => number;
  /** Reads a kept photo back (the media bucket), for a photo that waited. */
  keptPhoto?: (key: string) => Promise<Uint8Array | undefined>;
}

/** What the chat's outbox waits for, as the admin API and the console show it. */
export interface OutboxState {
  waiting: number;
  oldestAt?: number;
  nextTryAt?: number;
  /** Messages given up so far (past OUTBOX_MAX_HOURS, or refused), and the last one's reason. */
  dropped?: { count: number; lastAt: number; reason: string };
  /** Telegram's last refusal here (the bot blocked or kicked, the chat gone, a message it will never take). */
  telegramRefused?: { at: number; description: string };
}

/**
 * The chat object's outbox (see reply/outbox.ts), its records kept in the chat's meta: a refusal of the rich form
 * (the HTML path for a while, as for a turn), Telegram's last refusal, how many messages were given up; and
 * `/health`'s marker of what waits, written when the outbox fills or empties.
 */
export function chatOutbox(options: ChatOutboxOptions): Outbox {
  const { stores, settings } = options;
  const now = options.now ?? Date.now;
  return new Outbox({
    telegram: options.telegram,
    store: stores.outbox,
    maxAgeMs: settings.outboxMaxMs,
    now,
    ...(options.keptPhoto ? { keptPhoto: options.keptPhoto } : {}),
    records: {
      richRefused: (description) => stores.meta.set(richRefusedSlot, richRefusal(description, now())),
      refused: (description) =>
        stores.meta.set(telegramRefusedSlot, { at: now(), description: description.slice(0, 300) }),
      dropped: (count, reason) => {
        const before = stores.meta.get(outboxDroppedSlot);
        stores.meta.set(outboxDroppedSlot, {
          count: (before?.count ?? 0) + count,
          lastAt: now(),
          reason: reason.slice(0, 300),
        });
      },
      changed: async () => {
        await bestEffort("marking the outbox for /health", () => mark(options, now()));
        await bestEffort("setting the alarm for the outbox", options.replan);
      },
    },
  });
}

export function outboxStateOf(stores: ChatStores): OutboxState {
  const dropped = stores.meta.get(outboxDroppedSlot);
  const telegramRefused = stores.meta.get(telegramRefusedSlot);
  return {
    ...stores.outbox.summary(),
    ...(dropped ? { dropped } : {}),
    ...(telegramRefused ? { telegramRefused } : {}),
  };
}

/** Tells `/health` what waits here: when the outbox fills or empties, and now and then while it waits. */
async function mark(options: ChatOutboxOptions, now: number): Promise<void> {
  const { stores } = options;
  const { waiting, oldestAt } = stores.outbox.summary();
  const last = stores.meta.get(outboxMarkedSlot);
  const board = new WaitingOutboxes(options.kv);
  if (waiting === 0 || oldestAt === undefined) {
    if (last === undefined) return;
    await board.clear(options.chatKey());
    stores.meta.delete(outboxMarkedSlot);
    return;
  }
  if (last !== undefined && last.waiting === waiting) return;
  if (last !== undefined && now - last.at < MARK_INTERVAL_MS) return;
  // The marker outlives the chat's limit by an hour at most, should the object never run again.
  const ttlSeconds = Math.ceil((oldestAt + options.settings.outboxMaxMs - now) / 1000) + 3600;
  await board.mark(options.chatKey(), { waiting, since: oldestAt }, ttlSeconds);
  stores.meta.set(outboxMarkedSlot, { waiting, at: now });
}
