import { ChatDatabase } from "./chat-database.ts";
import { HistorySearchStore } from "./history-search.ts";
import { HistoryStore } from "./history-store.ts";
import { type InboxCodec, type InboxKind, InboxStore } from "./inbox-store.ts";
import { MetaStore } from "./meta-store.ts";
import { OutboxStore } from "./outbox-store.ts";
import { PersonHistory } from "./person-history.ts";
import { UsageBuffer } from "./usage-buffer.ts";

/**
 * The chat object's state, as small stores over its one SQLite database. All calls are synchronous (Durable Object
 * SQLite); `atomically` makes the writes of one turn land together.
 */
export class ChatStores<Entry extends { kind: InboxKind } = { kind: InboxKind }> {
  /** What waits to be answered; what an entry is, the codec its user gives says. */
  readonly inbox: InboxStore<Entry>;
  readonly history: HistoryStore;
  /** The full-text index over all of the chat's history (live and archived), and the archive's retention. */
  readonly historySearch: HistorySearchStore;
  readonly meta: MetaStore;
  readonly usage: UsageBuffer;
  /** Messages Telegram could not take yet, retried in order on the alarm. */
  readonly outbox: OutboxStore;
  /** A private chat's person: what they wrote, for an export, and the erase of it all. */
  readonly person: PersonHistory;
  private readonly database: ChatDatabase;

  constructor(storage: DurableObjectStorage, inbox: InboxCodec<Entry>) {
    this.database = new ChatDatabase(storage);
    this.inbox = new InboxStore(this.database, inbox);
    this.history = new HistoryStore(this.database);
    this.meta = new MetaStore(this.database);
    this.historySearch = new HistorySearchStore(this.database, this.meta);
    this.usage = new UsageBuffer(this.database);
    this.outbox = new OutboxStore(this.database);
    this.person = new PersonHistory(this.database, this.historySearch);
  }

  /**
   * Brings the database up to date. A database just created has nothing in its inbox, outbox, usage buffer or meta,
   * and no search index, and those stores know it without the read each would make first (a new chat's first turn,
   * many at once).
   */
  async migrate(): Promise<{ fresh: boolean }> {
    const migrated = await this.database.migrate();
    if (migrated.fresh) {
      this.inbox.knownEmpty();
      this.outbox.knownEmpty();
      this.usage.knownEmpty();
      this.historySearch.knownAbsent();
      this.meta.knownEmpty();
    }
    return migrated;
  }

  atomically<T>(work: () => T): T {
    return this.database.atomically(work);
  }
}
