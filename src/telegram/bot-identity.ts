import * as z from "zod";
import { botFullInfoSchema } from "./bot-api-10-5.ts";
import type { TelegramClient } from "./client.ts";

export interface BotIdentity {
  id: number;
  username: string;
}

const identitySchema = z.object({ id: z.number().int(), username: z.string().min(1) });
const KV_TTL_SECONDS = 24 * 60 * 60;
const MEMORY_TTL_MS = 60 * 60 * 1000;

/** Per isolate: the bot's identity by token prefix (the bot id), so a changed token is looked up afresh. */
const remembered = new Map<string, { identity: BotIdentity; until: number }>();

/** Tests: KV is wiped between tests, so the identities read from it are forgotten too. */
export function forgetBotIdentities(): void {
  remembered.clear();
}

/**
 * The bot's id and @username, from `getMe`, cached in memory for an hour and in KV for a day, so a group message
 * costs no Bot API call to check whether it mentions the bot.
 */
export async function botIdentity(botToken: string, telegram: TelegramClient, kv: KVNamespace): Promise<BotIdentity> {
  const botId = botToken.split(":")[0] ?? "";
  const now = Date.now();
  const inMemory = remembered.get(botId);
  if (inMemory && inMemory.until > now) return inMemory.identity;

  const key = `telegram:identity:${botId}`;
  const stored = identitySchema.safeParse(await kv.get(key, "json").catch(() => null));
  let identity: BotIdentity;
  if (stored.success) {
    identity = stored.data;
  } else {
    // Bot API 10.5: getMe returns BotFullInfo (grammY's types know 10.3's User), read through its schema.
    const me = botFullInfoSchema.parse(await telegram.api.getMe());
    identity = { id: me.id, username: me.username };
    await kv.put(key, JSON.stringify(identity), { expirationTtl: KV_TTL_SECONDS });
  }
  remembered.set(botId, { identity, until: now + MEMORY_TTL_MS });
  return identity;
}
