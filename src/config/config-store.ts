import { chatConfigSchema, type ChatConfig } from "./chat-config.ts";

const PREFIX = "chat-config:";

export type StoredConfig =
  | { state: "none" }
  | { state: "valid"; config: ChatConfig }
  /** Someone wrote KV by hand: the chat falls back to the defaults, and /status and the admin API say why. */
  | { state: "invalid"; problem: string };

/** Per-chat config in KV, one key per chat. KV is eventually consistent: a change can take up to a minute elsewhere. */
export class ChatConfigStore {
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
  }

  async delete(chatId: number): Promise<void> {
    await this.kv.delete(PREFIX + chatId);
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
    return { state: "invalid", problem: parsed.error.issues.map((issue) => issue.path.join(".") || "config").join(", ") };
  }
}
