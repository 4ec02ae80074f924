/** The commands the bot answers itself, without a model call; registered with Telegram by `npm run setup:telegram`. */
export const BOT_COMMANDS = [
  { command: "start", description: "What this bot is and how to talk to it" },
  { command: "help", description: "The commands" },
  { command: "new", description: "Start a fresh conversation" },
  { command: "status", description: "Provider, model, history and token use" },
  { command: "summary", description: "The summary of the earlier conversation" },
  { command: "model", description: "The provider and model this chat uses" },
  {
    command: "provider",
    description: "Set this chat's provider: /provider <name> [model] or /provider reset (admins)",
  },
  { command: "memory", description: "What I keep about you and this chat, with buttons to forget" },
  { command: "tasks", description: "This chat's scheduled tasks and running helpers" },
  { command: "skills", description: "This chat's skills: /skills, /skills show|on|off|delete <name>" },
  { command: "voice", description: "Spoken answers: /voice [off|when-spoken-to|always]" },
  { command: "agent", description: "Run one task with this chat's agent (Claude or Codex): /agent <task>" },
  { command: "stop", description: "Stop the running answer and your background helpers" },
  { command: "pair", description: "Ask for access to this bot with a code" },
  { command: "approve", description: "Let a waiting chat in: /approve ABCD-EFGH (admins)" },
] as const;

export type BotCommandName = (typeof BOT_COMMANDS)[number]["command"];

const names: ReadonlySet<string> = new Set(BOT_COMMANDS.map((entry) => entry.command));

export function isBotCommand(name: string): name is BotCommandName {
  return names.has(name);
}

/**
 * The update kinds the bot handles: messages, presses of its buttons (Stop), of a rich draft's stop control, and guest
 * queries (Bot API 10.0: the bot summoned by name in a chat it is not in; Telegram sends them only when listed here).
 */
export const ALLOWED_UPDATES = [
  "message",
  "callback_query",
  "stopped_message_generation",
  "guest_message",
  "widget_query",
] as const;
