import { SharedRead } from "../lib/shared-read.ts";
import { type ChatConfig, chatConfigSchema, type EffectiveConfig, resolveConfig } from "./chat-config.ts";
import { ConfigProblemsStore } from "./config-problems.ts";
import type { Settings } from "./settings.ts";

const PREFIX = "chat-config:";

export type StoredConfig =
  | { state: "none" }
  | { state: "valid"; config: ChatConfig }
  /** Someone wrote KV by hand: the chat falls back to the defaults, and /status and the admin API say why. */
  | { state: "invalid"; problem: string };

/**
 * What a chat command may build its change on: the stored config (none is an empty one), or why not. A stored config
 * that does not parse fails closed (no model call); a command writing over it would lift `enabled: false`, budgets and
 * tool lists nobody meant to change, so it is left for the admin API, the console or `/provider reset`.
 */
export function editableConfig(stored: StoredConfig): { config: ChatConfig } | { refused: string } {
  switch (stored.state) {
    case "none":
      return { config: {} };
    case "valid":
      return { config: stored.config };
    case "invalid":
      return {
        refused:
          `This chat's stored config does not parse (${stored.problem}), so nothing was changed: an admin can fix it ` +
          "in the console or the admin API, or remove it with /provider reset.",
      };
  }
}

export interface ConfigReader {
  get(chatId: number): Promise<StoredConfig>;
  put(chatId: number, config: ChatConfig): Promise<void>;
  delete(chatId: number): Promise<void>;
}

/** Per-chat config in KV, one key per chat. KV is eventually consistent: a change can take up to a minute elsewhere. */
export class ChatConfigStore implements ConfigReader {
  private readonly schema: ReturnType<typeof chatConfigSchema>;

  constructor(
    private readonly kv: KVNamespace,
    toolNames: readonly string[],
  ) {
    this.schema = chatConfigSchema(toolNames);
  }

  async get(chatId: number): Promise<StoredConfig> {
    const raw = await this.kv.get(PREFIX + chatId, "text");
    return raw === null ? { state: "none" } : this.parse(raw);
  }

  async put(chatId: number, config: ChatConfig): Promise<void> {
    await this.kv.put(PREFIX + chatId, JSON.stringify(config));
    await new ConfigProblemsStore(this.kv).clear(chatId);
  }

  async delete(chatId: number): Promise<void> {
    await this.kv.delete(PREFIX + chatId);
    await new ConfigProblemsStore(this.kv).clear(chatId);
  }

  /** Every configured chat, following KV's list cursor. */
  async list(): Promise<{ chatId: number; stored: StoredConfig }[]> {
    const chats: { chatId: number; stored: StoredConfig }[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.kv.list({ prefix: PREFIX, ...(cursor ? { cursor } : {}) });
      const entries = await Promise.all(
        page.keys.map(async (key) => {
          const chatId = Number(key.name.slice(PREFIX.length));
          return Number.isSafeInteger(chatId) ? { chatId, stored: await this.get(chatId) } : undefined;
        }),
      );
      for (const entry of entries) if (entry && entry.stored.state !== "none") chats.push(entry);
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
    return chats.sort((left, right) => left.chatId - right.chatId);
  }

  private parse(raw: string): StoredConfig {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return { state: "invalid", problem: "the stored value is not JSON" };
    }
    const parsed = this.schema.safeParse(json);
    if (parsed.success) return { state: "valid", config: parsed.data };
    return {
      state: "invalid",
      problem: parsed.error.issues.map((issue) => issue.path.join(".") || "config").join(", "),
    };
  }
}

/**
 * A chat object's view of its config: read from KV at most once a minute (KV itself may take that long to show a
 * change elsewhere), and set at once when the change comes through this object (/provider) or is sent to it by the
 * admin API. Saves a KV read per turn, which counts against KV's daily read allowance.
 */
export class CachedChatConfig implements ConfigReader {
  private cached: { chatId: number; stored: StoredConfig; until: number } | undefined;
  /** A read under way, which a second `get` meanwhile (a warm-up, then the turn) shares. */
  private readonly reads = new SharedRead<number, StoredConfig>();

  constructor(
    private readonly store: ChatConfigStore,
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(chatId: number): Promise<StoredConfig> {
    if (this.cached && this.cached.chatId === chatId && this.cached.until > this.now())
      return Promise.resolve(this.cached.stored);
    return this.reads.of(chatId, (stillCurrent) =>
      this.store.get(chatId).then((stored) => {
        // A change remembered while KV was read is newer than what the read found: it stays.
        if (stillCurrent()) this.remember(chatId, stored);
        return stored;
      }),
    );
  }

  async put(chatId: number, config: ChatConfig): Promise<void> {
    await this.store.put(chatId, config);
    this.remember(chatId, { state: "valid", config });
  }

  async delete(chatId: number): Promise<void> {
    await this.store.delete(chatId);
    this.remember(chatId, { state: "none" });
  }

  remember(chatId: number, stored: StoredConfig): void {
    this.reads.drop();
    this.cached = { chatId, stored, until: this.now() + this.ttlMs };
  }
}

/**
 * Resolved configs, by the stored one they came from: a cached reader hands back the same stored object for a minute,
 * and resolving it anew (a dozen objects) was part of every turn. Nothing changes an effective config in place.
 */
const resolved = new WeakMap<StoredConfig, { settings: Settings; config: EffectiveConfig }>();

/** A chat's config as it applies (its stored one resolved against the defaults), and what was stored. */
export async function effectiveConfigOf(
  configs: ConfigReader,
  chatId: number,
  settings: Settings,
): Promise<{ config: EffectiveConfig; stored: StoredConfig }> {
  const stored = await configs.get(chatId);
  let entry = resolved.get(stored);
  if (entry?.settings !== settings) {
    entry = { settings, config: resolveConfig(stored.state === "valid" ? stored.config : undefined, settings) };
    resolved.set(stored, entry);
  }
  return { config: entry.config, stored };
}
