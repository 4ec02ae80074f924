import { hasNoAdmin, isAdminIn } from "../access/access-store.ts";
import { newPairingCode, normalizeCode, PAIRING_TTL_MS } from "../access/pairing-codes.ts";
import { setupCodeOf } from "../access/setup-code.ts";
import { secretsEqual } from "../protocol/http/bearer.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { pairingSlot, setupAttemptsSlot } from "./command-slots.ts";

/** What pairing works with: the chat's state, the access record in KV, and (to tell an approved chat) Telegram. */
type PairingContext = Pick<ChatContext, "pairing" | "settings" | "stores" | "now">;

/** Wrong setup codes a chat may try per hour: 40 bits are not guessed at this pace. */
const MAX_SETUP_ATTEMPTS = 5;
const HOUR_MS = 60 * 60 * 1000;

/**
 * `/pair` from a chat that is not allowed: a code its owner can approve (the same one while it is valid), or, with
 * the setup code `npm run setup:telegram` printed, the first private chat of a bot without admins becomes its owner.
 */
export async function pairText(ctx: PairingContext, message: IncomingMessage): Promise<string> {
  const args = message.command?.args ?? "";
  const now = ctx.now();
  if (args !== "") return claimOwnership(ctx, message, args, now);
  const record = await ctx.pairing.access().read();

  let current = ctx.stores.meta.get(pairingSlot);
  if (!current || current.expiresAt <= now) {
    const code = newPairingCode();
    const expiresAt = now + PAIRING_TTL_MS;
    const name = message.chat.title ?? message.from?.name;
    await ctx.pairing.codes().put(code, {
      chatId: message.chat.id,
      type: message.chat.type,
      ...(name ? { title: name.slice(0, 64) } : {}),
      ...(message.from ? { userId: message.from.id, userName: message.from.name.slice(0, 64) } : {}),
      createdAt: now,
      expiresAt,
    });
    current = { code, expiresAt };
    ctx.stores.meta.set(pairingSlot, current);
  }
  const minutes = Math.max(1, Math.round((current.expiresAt - now) / 60_000));
  const lines = [
    `Your pairing code is \`${current.code}\` (valid for ${minutes} more minutes).`,
    `Ask the bot's owner to approve it in the console, or to send \`/approve ${current.code}\` to the bot in a private chat.`,
  ];
  if (hasNoAdmin(ctx.settings, record) && message.chat.type === "private") {
    lines.push("Setting up your own bot? Send `/pair <setup code>` with the code `npm run setup:telegram` printed.");
  }
  return lines.join("\n");
}

async function claimOwnership(
  ctx: PairingContext,
  message: IncomingMessage,
  presented: string,
  now: number,
): Promise<string> {
  const access = ctx.pairing.access();
  if (!hasNoAdmin(ctx.settings, await access.read())) {
    return "This bot already has an owner. Send /pair without a code to ask for access.";
  }
  if (message.chat.type !== "private" || !message.from) return "The owner pairs from a private chat with the bot.";
  const attempts = ctx.stores.meta.get(setupAttemptsSlot);
  const recent = attempts && now - attempts.since < HOUR_MS ? attempts : { since: now, count: 0 };
  if (recent.count >= MAX_SETUP_ATTEMPTS) return "Too many wrong codes. Try again in an hour.";
  const secret = ctx.settings.webhookSecret;
  const code = normalizeCode(presented);
  if (!secret || code === undefined || !(await secretsEqual(code, await setupCodeOf(secret)))) {
    ctx.stores.meta.set(setupAttemptsSlot, { since: recent.since, count: recent.count + 1 });
    return "That is not the setup code. `npm run setup:telegram` prints it.";
  }
  await access.addAdmin(message.from.id, message.from.name);
  await access.approveChat(message.chat.id, { type: "private", title: message.from.name, approvedBy: "setup code" });
  ctx.stores.meta.delete(setupAttemptsSlot);
  return "✅ You are this bot's owner now: this chat is allowed, and you are an admin. /help lists the commands.";
}

/** `/approve CODE`: an admin, in a private chat with the bot, lets a waiting chat in. */
export async function approveText(ctx: ChatContext, message: IncomingMessage): Promise<string> {
  const record = await ctx.pairing.access().read();
  if (!isAdminIn(ctx.settings, record, message.from?.id)) return "Only the bot's admins can approve chats.";
  if (message.chat.type !== "private") return "Approve chats from your private chat with the bot.";
  const code = normalizeCode(message.command?.args ?? "");
  if (code === undefined) return "Usage: /approve ABCD-EFGH (the code the other chat was given).";
  const result = await ctx.pairing.approve(code, `user ${message.from?.id}`);
  if (result.kind === "not_found") return `No chat is waiting with the code ${code} (codes expire after 10 minutes).`;
  const { pairing } = result;
  return `✅ Approved ${pairing.title ? `"${pairing.title}" ` : ""}(chat ${pairing.chatId}). It can talk to the bot now.`;
}
