import { budgetLine, paidLine, spendOn } from "../budget/budget.ts";
import { platformLine } from "../budget/platform-cost.ts";
import { spendSlot } from "../budget/spend-slot.ts";
import { summaryFailureSlot, summarySlot } from "../compaction/summary-slots.ts";
import { resolveConfig } from "../config/chat-config.ts";
import { editableConfig } from "../config/config-store.ts";
import { isProvider, PROVIDERS } from "../config/providers.ts";
import { dayKey, startOfDay } from "../config/zones.ts";
import { chatUsage } from "../db/usage.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { TaskRepository } from "../tasks/task-repository.ts";
import { listTasksText } from "../tasks/tasks-text.ts";
import { BOT_COMMANDS } from "../telegram/bot-commands.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { helpersText, stopHelpers } from "../turn/helpers.ts";
import { runTurn } from "../turn/run-turn.ts";
import { agentSessionIdSlot, codexSessionIdSlot } from "../turn/turn-slots.ts";
import { userMessageOf } from "../turn/user-message.ts";
import { memoryMenu } from "./memory-command.ts";
import { modelMenu } from "./model-menu.ts";
import { approveText } from "./pairing.ts";
import { skillsText } from "./skills-command.ts";
import { voiceText } from "./voice.ts";

/** Commands answered without a model call (all but /agent). Returns false for a command this bot does not know. */
export async function handleCommand(ctx: ChatContext, message: IncomingMessage, inboxId: number): Promise<boolean> {
  const command = message.command;
  if (!command) return false;
  // Answers take their place in the outbox, behind whatever waits for Telegram there.
  let refused = false;
  const reply = async (text: string) => {
    if ((await ctx.outbox.postMarkdown("answer", ctx.target, text)) === "refused") refused = true;
  };
  const finish = () =>
    ctx.stores.inbox.finish(
      [inboxId],
      ctx.now(),
      refused ? "the answer could not be delivered to Telegram" : undefined,
    );

  switch (command.name) {
    case "start":
      await reply(startText(ctx));
      break;
    case "help":
      await reply(["Commands:", ...BOT_COMMANDS.map((entry) => `/${entry.command} — ${entry.description}`)].join("\n"));
      break;
    case "new":
      await reply(await startAfresh(ctx));
      break;
    case "status":
      // What waits for Telegram is tried first. The answer is about the chat's state, the outbox's included: it goes
      // at once, ahead of what still waits (a status that waited would tell of a wait already over), or not at all.
      await ctx.outbox.retryNow();
      await bestEffort("answering /status", async () => ctx.telegram.sendMarkdown(ctx.target, await statusText(ctx)));
      break;
    case "summary":
      refused = (await ctx.outbox.postPlain("answer", ctx.target, summaryText(ctx))) === "refused";
      break;
    case "model": {
      // Admins get the configured choices as buttons; everyone else sees what is in use.
      const menu = await modelMenu({
        configs: ctx.configs,
        settings: ctx.settings,
        served: ctx.served,
        chatId: ctx.chat.id,
        withButtons: ctx.access.isAdmin(message.from?.id),
      });
      if (menu.keyboard.length === 0) await reply(menu.text);
      else await ctx.telegram.sendMenu(ctx.target, menu.text, menu.keyboard);
      break;
    }
    case "provider":
      await reply(await setProvider(ctx, message));
      break;
    case "memory": {
      const menu = await memoryMenu(ctx, message.from?.id);
      if (menu.keyboard.length === 0) await reply(menu.text);
      else await ctx.telegram.sendMenu(ctx.target, menu.text, menu.keyboard);
      break;
    }
    case "tasks": {
      const helpers = helpersText(ctx);
      await reply(
        [await listTasksText(new TaskRepository(ctx.db), ctx.chat.id), ...(helpers ? [helpers] : [])].join("\n\n"),
      );
      break;
    }
    case "skills":
      await reply(await skillsText(ctx, message));
      break;
    case "voice":
      await reply(await voiceText(ctx, message));
      break;
    case "pair":
      await reply("This chat may already talk to the bot.");
      break;
    case "approve":
      await reply(await approveText(ctx, message));
      break;
    case "stop": {
      // A running turn was stopped when this message arrived (see ChatSession.enqueue); here only helpers may run.
      const number = /^#?(\d{1,9})$/.exec(command.args)?.[1];
      const answer = await stopHelpers(ctx, {
        userId: message.from?.id,
        isAdmin: ctx.access.isAdmin(message.from?.id),
        ...(number === undefined ? {} : { number: Number(number) }),
      });
      await reply(answer);
      break;
    }
    case "agent":
      if (command.args === "") {
        await reply(await agentUsage(ctx));
        break;
      }
      await runAgentTask(ctx, message, { task: command.args, inboxId });
      return true;
    default:
      return false;
  }
  finish();
  return true;
}

/**
 * `/new`: the live history moves to the archive: the model starts afresh, search_history still finds the past
 * (unless the chat keeps no archive: then it is deleted after this message).
 */
async function startAfresh(ctx: ChatContext): Promise<string> {
  ctx.stores.atomically(() => {
    ctx.stores.history.clear();
    ctx.stores.meta.delete(agentSessionIdSlot);
    ctx.stores.meta.delete(codexSessionIdSlot);
    ctx.stores.meta.delete(summarySlot);
    ctx.stores.meta.delete(summaryFailureSlot);
  });
  const kept = (await effectiveConfig(ctx)).historyRetentionDays !== 0;
  return kept
    ? "🆕 Started a fresh conversation. Earlier messages are out of view but archived: I can still search them if you ask (remembered facts are kept)."
    : "🆕 Started a fresh conversation. Earlier messages are deleted (remembered facts are kept).";
}

async function agentUsage(ctx: ChatContext): Promise<string> {
  const config = await effectiveConfig(ctx);
  return `Usage: /agent <task> — runs one task with this chat's agent (${config.agent}) in its container.`;
}

/** `/agent <task>`: one turn of the chat's agent in its container, whatever the chat's provider. */
async function runAgentTask(
  ctx: ChatContext,
  message: IncomingMessage,
  command: { task: string; inboxId: number },
): Promise<void> {
  const config = await effectiveConfig(ctx);
  await runTurn(ctx, {
    kind: "agent",
    input: { kind: "ready", users: [userMessageOf({ ...message, text: command.task })] },
    inboxIds: [command.inboxId],
    messageId: message.messageId,
    senders: message.from ? [message.from.id] : [],
    providerOverride: config.agent,
    ...(message.chat.type === "private" ? {} : { replyToMessageId: message.messageId }),
  });
}

function startText(ctx: ChatContext): string {
  const name = ctx.settings.botName;
  const how =
    ctx.chat.type === "private"
      ? "Just write to me."
      : "In this group, mention me, reply to one of my messages, or use a command.";
  return `Hi! I'm ${name}, an AI assistant. ${how} I can remember facts and schedule reminders. /help lists the commands.`;
}

async function effectiveConfig(ctx: ChatContext) {
  const stored = await ctx.configs.get(ctx.chat.id);
  return { ...resolveConfig(stored.state === "valid" ? stored.config : undefined, ctx.settings), stored };
}

async function statusText(ctx: ChatContext): Promise<string> {
  const config = await effectiveConfig(ctx);
  const now = ctx.now();
  const since = startOfDay(now, config.timezone);
  const usage = await chatUsage(ctx.db, ctx.chat.id, since);
  // Records this object has not written to D1 yet.
  for (const { record: turn } of ctx.stores.usage.batch().records) {
    for (const sum of turn.createdAt >= since ? [usage.today, usage.total] : [usage.total]) {
      sum.turns += 1;
      sum.inputTokens += turn.inputTokens;
      sum.outputTokens += turn.outputTokens;
      sum.toolCalls += turn.toolCalls;
      sum.costUsd += turn.costUsd ?? 0;
      sum.durationMs += turn.durationMs;
      if (turn.kind === "summary") sum.summaries += 1;
    }
  }
  const lines = [
    `**Provider:** ${config.provider} (${config.source.provider === "chat" ? "set for this chat" : `from ${config.source.provider}`})`,
    `**Model:** \`${config.model}\``,
    `**Messages in history:** ${ctx.stores.history.count()} (the model sees the last ${ctx.settings.historyLimit}; ${ctx.stores.historySearch.archived()} more archived, found by search)`,
    `**Tokens today:** ${format(usage.today.inputTokens)} in, ${format(usage.today.outputTokens)} out (${usage.today.turns} turns)`,
    `**Tokens in total:** ${format(usage.total.inputTokens)} in, ${format(usage.total.outputTokens)} out (${usage.total.turns} turns)`,
  ];
  lines.push(summaryLine(ctx));
  const spend = spendOn(dayKey(now, config.timezone), ctx.stores.meta.get(spendSlot));
  const budget = budgetLine(spend, config.budget);
  if (budget !== undefined) lines.push(budget);
  lines.push(paidLine(spend, config.paidCaps));
  lines.push(platformLine({ ...usage.today, records: usage.today.turns }));
  const waiting = outboxLine(ctx);
  if (waiting !== undefined) lines.push(waiting);
  if (!config.enabled) lines.push("The bot is **disabled** in this chat.");
  if (config.stored.state === "invalid")
    lines.push(`⚠️ This chat's stored config is invalid (${config.stored.problem}): I do not answer until it is fixed.`);
  return lines.join("\n");
}

async function setProvider(ctx: ChatContext, message: IncomingMessage): Promise<string> {
  const userId = message.from?.id;
  if (!ctx.access.isAdmin(userId)) {
    return "Sorry, only the bot's admins can change the provider.";
  }
  const [name, model, ...extra] = (message.command?.args ?? "").split(/\s+/).filter(Boolean);
  if (!name || extra.length > 0) return `Usage: /provider <${PROVIDERS.join("|")}> [model], or /provider reset`;
  if (name === "reset") {
    await ctx.configs.delete(ctx.chat.id);
    return "This chat's config is removed; the defaults apply from the next message.";
  }
  if (!isProvider(name)) return `Unknown provider "${name}". Choose one of: ${PROVIDERS.join(", ")}.`;
  if (model !== undefined && model.length > 200) return "That model name is too long.";
  const editable = editableConfig(await ctx.configs.get(ctx.chat.id));
  if ("refused" in editable) return editable.refused;
  const { model: _previousModel, ...rest } = editable.config;
  await ctx.configs.put(ctx.chat.id, { ...rest, provider: name, ...(model ? { model } : {}) });
  const effective = resolveConfig({ ...rest, provider: name, ...(model ? { model } : {}) }, ctx.settings);
  return `This chat now uses **${effective.provider}** with model \`${effective.model}\`, from the next message.`;
}

/** /status's line on the rolling summary: its size and age, or why there is none. */
function summaryLine(ctx: ChatContext): string {
  const summary = ctx.stores.meta.get(summarySlot);
  const failure = ctx.stores.meta.get(summaryFailureSlot);
  const failed = failure
    ? ` (the last update failed ${ago(ctx.now() - failure.at)}; tried again after the next message)`
    : "";
  if (!summary) return `**Summary:** none yet${failed}`;
  return `**Summary:** ${format(summary.text.length)} characters covering ${format(summary.messages)} earlier messages, updated ${ago(ctx.now() - summary.updatedAt)}${failed}`;
}

/** /status's line on the answers waiting for Telegram in the outbox, if any wait. */
function outboxLine(ctx: ChatContext): string | undefined {
  const { waiting, nextTryAt } = ctx.outbox.summary();
  if (waiting === 0) return undefined;
  const next = nextTryAt === undefined ? "" : ` (next try ${inTime(nextTryAt - ctx.now())})`;
  return `⏳ **${waiting} ${waiting === 1 ? "answer" : "answers"} waiting for Telegram**${next}`;
}

function summaryText(ctx: ChatContext): string {
  const summary = ctx.stores.meta.get(summarySlot);
  if (!summary) return "There is no summary yet: the whole conversation still fits what the model sees.";
  return `📝 Summary of the earlier conversation (updated ${ago(ctx.now() - summary.updatedAt)}):\n\n${summary.text}`;
}

function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} days ago`;
}

function inTime(ms: number): string {
  if (ms < 1000) return "now";
  if (ms < 60_000) return `in ${Math.ceil(ms / 1000)} s`;
  const minutes = Math.ceil(ms / 60_000);
  return minutes < 120 ? `in ${minutes} min` : `in ${Math.ceil(minutes / 60)} h`;
}

function format(count: number): string {
  return count.toLocaleString("en-US");
}
