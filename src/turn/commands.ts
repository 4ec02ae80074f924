import { resolveConfig } from "../config/chat-config.ts";
import { isProvider, PROVIDERS } from "../config/providers.ts";
import { dayKey, startOfDay } from "../config/zones.ts";
import { chatUsage } from "../db/usage.ts";
import { listTasksText } from "../tasks/tasks-text.ts";
import { BOT_COMMANDS } from "../telegram/bot-commands.ts";
import type { IncomingMessage } from "../telegram/update.ts";
import { budgetLine, spendOn } from "./budget.ts";
import { modelMenu } from "./model-menu.ts";
import { approveText } from "./pairing.ts";
import { runTurn } from "./run-turn.ts";
import type { TurnServices } from "./turn-services.ts";
import { userMessageOf } from "./user-message.ts";

/** Commands answered without a model call (all but /agent). Returns false for a command this bot does not know. */
export async function handleCommand(
  services: TurnServices,
  message: IncomingMessage,
  inboxId: number,
): Promise<boolean> {
  const command = message.command;
  if (!command) return false;
  const reply = (text: string) => services.telegram.sendMarkdown(services.target, text);
  const finish = () => services.store.finish([inboxId], services.now());

  switch (command.name) {
    case "start":
      await reply(startText(services));
      break;
    case "help":
      await reply(["Commands:", ...BOT_COMMANDS.map((entry) => `/${entry.command} — ${entry.description}`)].join("\n"));
      break;
    case "new":
      services.store.atomically(() => {
        services.store.clearHistory();
        services.store.deleteMeta("agentSessionId");
        services.store.deleteMeta("codexSessionId");
        services.store.deleteMeta("summary");
        services.store.deleteMeta("summaryFailure");
      });
      await reply("🆕 Started a fresh conversation. Earlier messages are forgotten (remembered facts are kept).");
      break;
    case "status":
      await reply(await statusText(services));
      break;
    case "summary":
      await services.telegram.sendPlain(services.target, summaryText(services));
      break;
    case "model": {
      // Admins get the configured choices as buttons; everyone else sees what is in use.
      const menu = await modelMenu({
        configs: services.configs,
        settings: services.settings,
        chatId: services.chat.id,
        withButtons: services.isAdminUser(message.from?.id),
      });
      if (menu.keyboard.length === 0) await reply(menu.text);
      else await services.telegram.sendMenu(services.target, menu.text, menu.keyboard);
      break;
    }
    case "provider":
      await reply(await setProvider(services, message));
      break;
    case "tasks":
      await reply(await listTasksText(services.db, services.chat.id));
      break;
    case "pair":
      await reply("This chat may already talk to the bot.");
      break;
    case "approve":
      await reply(await approveText(services, message));
      break;
    case "stop":
      // A running turn was stopped when this message arrived (see ChatSession.enqueue); here nothing runs.
      await reply("Nothing is running.");
      break;
    case "agent": {
      const config = await effectiveConfig(services);
      if (command.args === "") {
        await reply(`Usage: /agent <task> — runs one task with this chat's agent (${config.agent}) in its container.`);
        break;
      }
      await runTurn(services, {
        kind: "agent",
        users: [userMessageOf({ ...message, text: command.args })],
        inboxIds: [inboxId],
        messageId: message.messageId,
        ...(message.from ? { userId: message.from.id } : {}),
        providerOverride: config.agent,
        ...(message.chat.type === "private" ? {} : { replyToMessageId: message.messageId }),
      });
      return true;
    }
    default:
      return false;
  }
  finish();
  return true;
}

function startText(services: TurnServices): string {
  const name = services.settings.botName;
  const how =
    services.chat.type === "private"
      ? "Just write to me."
      : "In this group, mention me, reply to one of my messages, or use a command.";
  return `Hi! I'm ${name}, an AI assistant. ${how} I can remember facts and schedule reminders. /help lists the commands.`;
}

async function effectiveConfig(services: TurnServices) {
  const stored = await services.configs.get(services.chat.id);
  return { ...resolveConfig(stored.state === "valid" ? stored.config : undefined, services.settings), stored };
}

async function statusText(services: TurnServices): Promise<string> {
  const config = await effectiveConfig(services);
  const now = services.now();
  const since = startOfDay(now, config.timezone);
  const usage = await chatUsage(services.db, services.chat.id, since);
  // Records this object has not written to D1 yet.
  for (const { record: turn } of services.store.bufferedUsage()) {
    for (const sum of turn.createdAt >= since ? [usage.today, usage.total] : [usage.total]) {
      sum.turns += 1;
      sum.inputTokens += turn.inputTokens;
      sum.outputTokens += turn.outputTokens;
    }
  }
  const lines = [
    `**Provider:** ${config.provider} (${config.source.provider === "chat" ? "set for this chat" : `from ${config.source.provider}`})`,
    `**Model:** \`${config.model}\``,
    `**Messages in history:** ${services.store.historyCount()} (the model sees the last ${services.settings.historyLimit})`,
    `**Tokens today:** ${format(usage.today.inputTokens)} in, ${format(usage.today.outputTokens)} out (${usage.today.turns} turns)`,
    `**Tokens in total:** ${format(usage.total.inputTokens)} in, ${format(usage.total.outputTokens)} out (${usage.total.turns} turns)`,
  ];
  lines.push(summaryLine(services));
  const budget = budgetLine(spendOn(dayKey(now, config.timezone), services.store.getMeta("spend")), config.budget);
  if (budget !== undefined) lines.push(budget);
  if (!config.enabled) lines.push("The bot is **disabled** in this chat.");
  if (config.stored.state === "invalid")
    lines.push(`⚠️ This chat's stored config is invalid (${config.stored.problem}); defaults apply.`);
  return lines.join("\n");
}

async function setProvider(services: TurnServices, message: IncomingMessage): Promise<string> {
  const userId = message.from?.id;
  if (!services.isAdminUser(userId)) {
    return "Sorry, only the bot's admins can change the provider.";
  }
  const [name, model, ...extra] = (message.command?.args ?? "").split(/\s+/).filter(Boolean);
  if (!name || extra.length > 0) return `Usage: /provider <${PROVIDERS.join("|")}> [model], or /provider reset`;
  if (name === "reset") {
    await services.configs.delete(services.chat.id);
    return "This chat's config is removed; the defaults apply from the next message.";
  }
  if (!isProvider(name)) return `Unknown provider "${name}". Choose one of: ${PROVIDERS.join(", ")}.`;
  if (model !== undefined && model.length > 200) return "That model name is too long.";
  const stored = await services.configs.get(services.chat.id);
  const { model: _previousModel, ...rest } = stored.state === "valid" ? stored.config : {};
  await services.configs.put(services.chat.id, { ...rest, provider: name, ...(model ? { model } : {}) });
  const effective = resolveConfig({ ...rest, provider: name, ...(model ? { model } : {}) }, services.settings);
  return `This chat now uses **${effective.provider}** with model \`${effective.model}\`, from the next message.`;
}

/** /status's line on the rolling summary: its size and age, or why there is none. */
function summaryLine(services: TurnServices): string {
  const summary = services.store.getMeta("summary");
  const failure = services.store.getMeta("summaryFailure");
  const failed = failure
    ? ` (the last update failed ${ago(services.now() - failure.at)}; tried again after the next message)`
    : "";
  if (!summary) return `**Summary:** none yet${failed}`;
  return `**Summary:** ${format(summary.text.length)} characters covering ${format(summary.messages)} earlier messages, updated ${ago(services.now() - summary.updatedAt)}${failed}`;
}

function summaryText(services: TurnServices): string {
  const summary = services.store.getMeta("summary");
  if (!summary) return "There is no summary yet: the whole conversation still fits what the model sees.";
  return `📝 Summary of the earlier conversation (updated ${ago(services.now() - summary.updatedAt)}):\n\n${summary.text}`;
}

function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} days ago`;
}

function format(count: number): string {
  return count.toLocaleString("en-US");
}
