import { type Skill, skillChars, skillNameSchema } from "../skills/skill.ts";
import { skillFileText } from "../skills/skill-markdown.ts";
import { changeSkill, deleteSkill, getSkill, listSkills } from "../skills/skill-store.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { ChatContext } from "../turn/chat-context.ts";

const USAGE =
  "Usage: /skills — this chat's skills; /skills show <name>; admins: /skills on <name>, /skills off <name>, " +
  "/skills delete <name>. Skills are uploaded and edited in the console (or the admin API).";

/**
 * `/skills`: anyone sees the chat's skills (its own and the bot's) and may read one; the bot's admins switch the
 * chat's own on or off and delete them. Uploading and editing a file is the console's (or the admin API's) job: a
 * Markdown file is easier to write there than in a chat message.
 */
export async function skillsText(ctx: ChatContext, message: IncomingMessage): Promise<string> {
  const [action = "", name, ...extra] = (message.command?.args ?? "").split(/\s+/).filter(Boolean);
  if (action === "") return listText(ctx);
  if (name === undefined || extra.length > 0 || !["show", "on", "off", "delete"].includes(action)) return USAGE;
  if (!skillNameSchema.safeParse(name).success) return `"${name}" is not a skill name.`;
  const chat = { kind: "chat" as const, chatId: ctx.chat.id };
  if (action === "show") {
    const skill = (await getSkill(ctx.db, chat, name)) ?? (await getSkill(ctx.db, { kind: "bot" }, name));
    return skill ? `\`\`\`markdown\n${skillFileText(skill)}\`\`\`` : `There is no skill named ${name} here.`;
  }
  if (!ctx.access.isAdmin(message.from?.id)) return "Only the bot's admins can change skills.";
  const own = await getSkill(ctx.db, chat, name);
  if (!own) {
    const bot = await getSkill(ctx.db, { kind: "bot" }, name);
    return bot
      ? `${name} is one of the bot's skills, for every chat; change it in the console.`
      : `This chat has no skill named ${name}.`;
  }
  const now = ctx.now();
  if (action === "delete") {
    await deleteSkill(ctx.db, chat, name);
    ctx.skills.forget();
    return `🗑 Deleted the skill ${name}.`;
  }
  await changeSkill(ctx.db, { scope: chat, name, enabled: action === "on", now });
  ctx.skills.forget();
  return action === "on" ? `✅ ${name} is on, from the next message.` : `⏸ ${name} is off, from the next message.`;
}

async function listText(ctx: ChatContext): Promise<string> {
  const [own, bot] = await Promise.all([
    listSkills(ctx.db, { kind: "chat", chatId: ctx.chat.id }),
    listSkills(ctx.db, { kind: "bot" }),
  ]);
  const ownNames = new Set(own.map((skill) => skill.name));
  const shared = bot.filter((skill) => !ownNames.has(skill.name));
  if (own.length === 0 && shared.length === 0) {
    return "This chat has no skills. The bot's owner adds them in the console (Markdown files of instructions).";
  }
  const lines: string[] = [];
  if (own.length > 0) lines.push("**Skills in this chat**", ...own.map(line));
  if (shared.length > 0) lines.push("**The bot's skills**", ...shared.map(line));
  lines.push("", "/skills show <name> shows one. Admins: /skills on|off|delete <name>.");
  return lines.join("\n");
}

function line(skill: Skill): string {
  const how = skill.always ? "always" : "on demand";
  return `${skill.enabled ? "✅" : "⏸"} \`${skill.name}\` — ${skill.description} (${how}, ${skillChars(skill).toLocaleString("en-US")} chars)`;
}
