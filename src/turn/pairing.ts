import { AccessStore, hasNoAdmin, isAdminIn } from "../access/access-store.ts";
import { approvePairing } from "../access/approve.ts";
import { newPairingCode, normalizeCode, PAIRING_TTL_MS, PairingStore } from "../access/pairing-codes.ts";
import { setupCodeOf } from "../access/setup-code.ts";
import { secretsEqual } from "../http/bearer.ts";
import type { IncomingMessage } from "../telegram/update.ts";
import type { TurnServices } from "./turn-services.ts";

/** Wrong setup codes a chat may try per hour: 40 bits are not guessed at this pace. */
const MAX_SETUP_ATTEMPTS = 5;
const HOUR_MS = 60 * 60 * 1000;

/**
 * `/pair` from a chat that is not allowed: a code its owner can approve (the same one while it is valid), or, with
 * the setup code `npm run setup:telegram` printed, the first private chat of a bot without admins becomes its owner.
 */
export async function pairText(services: TurnServices, message: IncomingMessage): Promise<string> {
  const args = message.command?.args ?? "";
  const now = services.now();
  if (args !== "") return claimOwnership(services, message, args, now);
  const record = await new AccessStore(services.env.CONFIG, services.now).read();

  let current = services.store.getMeta("pairing");
  if (!current || current.expiresAt <= now) {
    const code = newPairingCode();
    const expiresAt = now + PAIRING_TTL_MS;
    const name = message.chat.title ?? message.from?.name;
    await new PairingStore(services.env.CONFIG).put(code, {
      chatId: message.chat.id,
      type: message.chat.type,
      ...(name ? { title: name.slice(0, 64) } : {}),
      ...(message.from ? { userId: message.from.id, userName: message.from.name.slice(0, 64) } : {}),
      createdAt: now,
      expiresAt,
    });
    current = { code, expiresAt };
    services.store.setMeta("pairing", current);
  }
  const minutes = Math.max(1, Math.round((current.expiresAt - now) / 60_000));
  const lines = [
    `Your pairing code is \`${current.code}\` (valid for ${minutes} more minutes).`,
    `Ask the bot's owner to approve it in the console, or to send \`/approve ${current.code}\` to the bot in a private chat.`,
  ];
  if (hasNoAdmin(services.settings, record) && message.chat.type === "private") {
    lines.push("Setting up your own bot? Send `/pair <setup code>` with the code `npm run setup:telegram` printed.");
  }
  return lines.join("\n");
}

async function claimOwnership(
  services: TurnServices,
  message: IncomingMessage,
  presented: string,
  now: number,
): Promise<string> {
  const access = new AccessStore(services.env.CONFIG, services.now);
  if (!hasNoAdmin(services.settings, await access.read())) {
    return "This bot already has an owner. Send /pair without a code to ask for access.";
  }
  if (message.chat.type !== "private" || !message.from) return "The owner pairs from a private chat with the bot.";
  const attempts = services.store.getMeta("setupAttempts");
  const recent = attempts && now - attempts.since < HOUR_MS ? attempts : { since: now, count: 0 };
  if (recent.count >= MAX_SETUP_ATTEMPTS) return "Too many wrong codes. Try again in an hour.";
  const secret = services.settings.webhookSecret;
  const code = normalizeCode(presented);
  if (!secret || code === undefined || !(await secretsEqual(code, await setupCodeOf(secret)))) {
    services.store.setMeta("setupAttempts", { since: recent.since, count: recent.count + 1 });
    return "That is not the setup code. `npm run setup:telegram` prints it.";
  }
  await access.addAdmin(message.from.id, message.from.name);
  await access.approveChat(message.chat.id, { type: "private", title: message.from.name, approvedBy: "setup code" });
  services.store.deleteMeta("setupAttempts");
  return "✅ You are this bot's owner now: this chat is allowed, and you are an admin. /help lists the commands.";
}

/** `/approve CODE`: an admin, in a private chat with the bot, lets a waiting chat in. */
export async function approveText(services: TurnServices, message: IncomingMessage): Promise<string> {
  const record = await new AccessStore(services.env.CONFIG, services.now).read();
  if (!isAdminIn(services.settings, record, message.from?.id)) return "Only the bot's admins can approve chats.";
  if (message.chat.type !== "private") return "Approve chats from your private chat with the bot.";
  const code = normalizeCode(message.command?.args ?? "");
  if (code === undefined) return "Usage: /approve ABCD-EFGH (the code the other chat was given).";
  const result = await approvePairing({
    kv: services.env.CONFIG,
    telegram: services.telegram,
    code,
    approvedBy: `user ${message.from?.id}`,
    now: services.now(),
  });
  if (result.kind === "not_found") return `No chat is waiting with the code ${code} (codes expire after 10 minutes).`;
  const { pairing } = result;
  return `✅ Approved ${pairing.title ? `"${pairing.title}" ` : ""}(chat ${pairing.chatId}). It can talk to the bot now.`;
}
