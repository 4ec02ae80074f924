import * as z from "zod";

const PREFIX = "outbox:";

const markSchema = z.object({ waiting: z.number().int().min(0), since: z.number() });
type Mark = z.infer<typeof markSchema>;

/** What waits for Telegram across chats, as `/health` reports it. */
export interface WaitingSummary {
  chats: number;
  messages: number;
  oldestAt: number;
}

/**
 * Which chats have messages waiting for Telegram (their outbox), for `/health`: one KV key per chat object, its
 * count and since when in the key's metadata, so that one `list` reads them all. Written by the chat's object only
 * when its outbox fills or empties (and now and then while it waits), never per message; a key outlives a chat's
 * limit by an hour at most. KV lists are eventually consistent: the count is a moment old.
 */
export class WaitingOutboxes {
  constructor(private readonly kv: KVNamespace) {}

  async mark(chatKey: string, mark: Mark, ttlSeconds: number): Promise<void> {
    await this.kv.put(`${PREFIX}${chatKey}`, "", { metadata: mark, expirationTtl: Math.max(60, ttlSeconds) });
  }

  async clear(chatKey: string): Promise<void> {
    await this.kv.delete(`${PREFIX}${chatKey}`);
  }

  /** Undefined when nothing waits anywhere. */
  async summary(): Promise<WaitingSummary | undefined> {
    let chats = 0;
    let messages = 0;
    let oldestAt = Number.POSITIVE_INFINITY;
    let cursor: string | undefined;
    do {
      const page = await this.kv.list({ prefix: PREFIX, ...(cursor ? { cursor } : {}) });
      for (const key of page.keys) {
        const mark = markSchema.safeParse(key.metadata);
        if (!mark.success || mark.data.waiting === 0) continue;
        chats += 1;
        messages += mark.data.waiting;
        oldestAt = Math.min(oldestAt, mark.data.since);
      }
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor !== undefined);
    return chats === 0 ? undefined : { chats, messages, oldestAt };
  }
}
