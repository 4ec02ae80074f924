import * as z from "zod";
import { includes } from "../config/id-list.ts";
import type { Settings } from "../config/settings.ts";

const KEY = "access";
/** How long an isolate trusts what it read: an approval or revocation made elsewhere shows within this (plus KV's own minute). */
const CACHE_MS = 30_000;

const idText = z.string().regex(/^-?\d{1,16}$/);
const recordSchema = z.object({
  /** Chats approved by pairing, in addition to ALLOWED_CHAT_IDS. */
  chats: z.record(
    idText,
    z.object({
      title: z.string().max(256).optional(),
      type: z.enum(["private", "group", "supergroup"]).optional(),
      approvedAt: z.number(),
      approvedBy: z.string().max(100),
    }),
  ),
  /** Users who are admins in addition to ADMIN_USER_IDS: the owner who paired with the setup code. */
  admins: z.record(idText, z.object({ name: z.string().max(256).optional(), since: z.number() })),
});
export type AccessRecord = z.infer<typeof recordSchema>;

const EMPTY: AccessRecord = { chats: {}, admins: {} };

/**
 * Who may talk to the bot beyond the environment's lists, in one KV key: chats approved by pairing and the owner
 * who set the bot up. One key, so the webhook decides with one (cached) read. Writes are read-modify-write by
 * people in the console or a chat, one at a time in practice; KV's last write wins if two land together.
 */
export class AccessStore {
  private static cached = new WeakMap<KVNamespace, { record: AccessRecord; until: number }>();

  constructor(
    private readonly kv: KVNamespace,
    private readonly now: () => number = Date.now,
  ) {}

  /** Drops this isolate's cached copies (tests wipe KV between cases; nothing else needs this). */
  static forgetCached(): void {
    AccessStore.cached = new WeakMap();
  }

  /** The record, from this isolate's cache when it is fresh. Unreadable contents count as empty (and are logged). */
  async read(): Promise<AccessRecord> {
    const cached = AccessStore.cached.get(this.kv);
    if (cached && cached.until > this.now()) return cached.record;
    return this.fetch();
  }

  async approveChat(
    chatId: number,
    entry: { title?: string; type?: AccessRecord["chats"][string]["type"]; approvedBy: string },
  ): Promise<void> {
    await this.change((record) => {
      record.chats[String(chatId)] = { ...entry, approvedAt: this.now() };
    });
  }

  /** Whether the chat was approved (and is not any more). */
  async revokeChat(chatId: number): Promise<boolean> {
    let found = false;
    await this.change((record) => {
      found = String(chatId) in record.chats;
      delete record.chats[String(chatId)];
    });
    return found;
  }

  async addAdmin(userId: number, name: string | undefined): Promise<void> {
    await this.change((record) => {
      record.admins[String(userId)] = { ...(name ? { name } : {}), since: this.now() };
    });
  }

  async removeAdmin(userId: number): Promise<boolean> {
    let found = false;
    await this.change((record) => {
      found = String(userId) in record.admins;
      delete record.admins[String(userId)];
    });
    return found;
  }

  private async fetch(): Promise<AccessRecord> {
    const raw = await this.kv.get(KEY, "text");
    let record = EMPTY;
    if (raw !== null) {
      try {
        record = recordSchema.parse(JSON.parse(raw));
      } catch {
        console.error("the stored access list is invalid; only ALLOWED_CHAT_IDS and ADMIN_USER_IDS apply");
      }
    }
    AccessStore.cached.set(this.kv, { record, until: this.now() + CACHE_MS });
    return record;
  }

  private async change(edit: (record: AccessRecord) => void): Promise<void> {
    const record = structuredClone(await this.fetch());
    edit(record);
    await this.kv.put(KEY, JSON.stringify(record));
    AccessStore.cached.set(this.kv, { record, until: this.now() + CACHE_MS });
  }
}

/** Allowed by ALLOWED_CHAT_IDS (no KV read), or approved by pairing. */
export async function isChatAllowedAnywhere(settings: Settings, kv: KVNamespace, chatId: number): Promise<boolean> {
  if (includes(settings.allowedChats, chatId)) return true;
  return String(chatId) in (await new AccessStore(kv).read()).chats;
}

/** The bot's admins: ADMIN_USER_IDS and the owner stored by pairing. */
export function isAdminIn(settings: Settings, record: AccessRecord, userId: number | undefined): boolean {
  if (userId === undefined) return false;
  return includes(settings.adminUserIds, userId) || String(userId) in record.admins;
}

/** No admin at all yet: the first private chat to pair with the setup code becomes the owner. */
export function hasNoAdmin(settings: Settings, record: AccessRecord): boolean {
  return (
    settings.adminUserIds.kind === "some" &&
    settings.adminUserIds.ids.size === 0 &&
    Object.keys(record.admins).length === 0
  );
}
