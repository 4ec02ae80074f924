import { isBotCommand } from "./bot-commands.ts";
import type { BotIdentity } from "./bot-identity.ts";
import type { IncomingMessage } from "./incoming-message.ts";
import type { TelegramMessage } from "./update.ts";

/**
 * Whether a group message is for this bot: a command to it (`/cmd@bot`, or a bare command the bot knows), a reply to
 * one of its messages, or a mention of it. Private chats are always addressed to the bot.
 */
export function isAddressedToBot(message: IncomingMessage, raw: TelegramMessage, bot: BotIdentity): boolean {
  if (message.chat.type === "private") return true;
  if (message.command) {
    const [name, target] = message.command.name.split("@");
    if (target !== undefined) return target.toLowerCase() === bot.username.toLowerCase();
    if (isBotCommand(name!)) return true;
  }
  if (message.replyTo?.fromId === bot.id) return true;
  const entities = raw.entities ?? raw.caption_entities ?? [];
  if (entities.some((entity) => entity.type === "text_mention" && entity.user?.id === bot.id)) return true;
  const mention = new RegExp(`@${bot.username}(?![a-zA-Z0-9_])`, "i");
  return mention.test(message.text);
}

/** The command with any `@bot` suffix removed, once the message is known to be for this bot. */
export function withoutBotSuffix(message: IncomingMessage): IncomingMessage {
  if (!message.command) return message;
  const [name] = message.command.name.split("@");
  return { ...message, command: { name: name!, args: message.command.args } };
}
