import { resolveConfig, VOICE_REPLIES, type VoiceReplies } from "../config/chat-config.ts";
import { editableConfig } from "../config/config-store.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { ChatContext } from "../turn/chat-context.ts";

const USAGE = "Usage: /voice, /voice off, /voice when-spoken-to or /voice always";

/**
 * `/voice`: spoken answers for this chat. Alone it toggles (off → always, anything else → off); with an argument it
 * sets that mode. In a private chat the person may change it (its cost is capped by the chat's speech allowance and
 * budget); in a group only the bot's admins may, so that one member cannot make the bot talk to everyone. Turning it
 * on where no speech model can run says why and changes nothing.
 */
export async function voiceText(ctx: ChatContext, message: IncomingMessage): Promise<string> {
  const argument = (message.command?.args ?? "").trim().toLowerCase();
  const editable = editableConfig(await ctx.configs.get(ctx.chat.id));
  if ("refused" in editable) return editable.refused;
  const own = editable.config;
  const current = resolveConfig(own, ctx.settings).voiceReplies;
  let next: VoiceReplies;
  if (argument === "") next = current === "off" ? "always" : "off";
  else if (argument === "on") next = "always";
  else if (isVoiceReplies(argument)) next = argument;
  else return USAGE;

  if (ctx.chat.type !== "private" && !ctx.access.isAdmin(message.from?.id)) {
    return `In a group, only the bot's admins can change spoken answers. Now: ${describe(current)}`;
  }
  if (next !== "off") {
    const speaker = ctx.speaker();
    if ("unavailable" in speaker) return `🔇 Spoken answers are not available: ${speaker.unavailable}.`;
  }
  await ctx.configs.put(ctx.chat.id, { ...own, voiceReplies: next });
  return describe(next);
}

function describe(mode: VoiceReplies): string {
  switch (mode) {
    case "off":
      return "🔇 Spoken answers are off. /voice speaks every answer; /voice when-spoken-to only answers to voice notes.";
    case "when-spoken-to":
      return "🔊 A voice note now gets a spoken answer too (after the text). /voice always for every answer, /voice off to stop.";
    case "always":
      return "🔊 Every answer now also comes as a voice message, after the text. /voice turns it off; /voice when-spoken-to speaks only to voice notes.";
  }
}

function isVoiceReplies(value: string): value is VoiceReplies {
  return (VOICE_REPLIES as readonly string[]).includes(value);
}
