import { handleCommand } from "../commands/commands.ts";
import { answerStranger } from "../commands/stranger.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { assertNever, errorText } from "../lib/errors.ts";
import { redactSecrets } from "../lib/redact.ts";
import { isBotCommand } from "../telegram/bot-commands.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import { Burst } from "../turn/burst.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { answerGuestQuery } from "../turn/guest-turn.ts";
import { deliverHelperReport } from "../turn/helpers.ts";
import type { InboxItem } from "../turn/inbox-entries.ts";
import { answering } from "../turn/joined-turn.ts";
import { runTurn } from "../turn/run-turn.ts";
import { runTask } from "../turn/scheduled-task.ts";

/** A message that failed this many times (the object died mid-turn each time) is given up, and the chat told. */
const MAX_ATTEMPTS = 3;

/** A message answered by a model turn with the plain messages around it (not a command of the bot's). */
export function isPlainMessage(message: IncomingMessage): boolean {
  return !(message.command && isBotCommand(message.command.name));
}

/**
 * The way in for plain messages sent while a batch is answered (see Burst), when the batch ends with plain messages:
 * their turn takes in the ones sent right after, until it shows something.
 */
export function burstFor(items: readonly InboxItem[]): Burst | undefined {
  const last = items.at(-1);
  const endsPlain = last?.kind === "message" && isPlainMessage(last.message) && last.attempts <= MAX_ATTEMPTS;
  if (!endsPlain) return undefined;
  // The plain messages its turn answers (the batch's last ones, back to anything else), an album counted once.
  const lastOther = items.findLastIndex((item) => item.kind !== "message" || !isPlainMessage(item.message));
  const sent = items
    .slice(lastOther + 1)
    .map((item) => (item.kind === "message" && item.message.mediaGroupId) || `#${item.id}`);
  return new Burst({ messages: new Set(sent).size });
}

/**
 * Works through one batch taken from the inbox, in order: plain messages waiting together are answered as one turn;
 * commands, tasks, helpers' reports, guests and strangers one at a time. The batch's `burst` (see burstFor) goes to
 * the turn of its last plain messages.
 */
export async function answerItems(ctx: ChatContext, items: InboxItem[], last?: Burst): Promise<void> {
  let batch: { ids: number[]; messages: IncomingMessage[] } = { ids: [], messages: [] };
  const flush = async (burst?: Burst) => {
    if (batch.messages.length === 0) return;
    const { ids, messages } = batch;
    batch = { ids: [], messages: [] };
    // The turn starts now, while the answers before it may still be on their way: what it shows waits for them.
    const turn = behindEarlierAnswers(ctx);
    await contained(
      turn,
      () => [...ids, ...(burst?.inboxIds ?? [])],
      () => answerMessages(turn, { ids, messages, burst }),
    );
  };

  for (const item of items) {
    if (item.attempts > MAX_ATTEMPTS) {
      await flush();
      await ctx.replies.settled;
      await giveUp(ctx, item);
      continue;
    }
    if (item.kind === "message" && isPlainMessage(item.message)) {
      batch.ids.push(item.id);
      batch.messages.push(item.message);
      continue;
    }
    await flush();
    // Commands, tasks, reports, guests and strangers start once the answers before them are delivered.
    await ctx.replies.settled;
    await contained(
      ctx,
      () => [item.id],
      () => answerOne(ctx, item),
    );
  }
  await flush(last);
}

/**
 * The context of a turn that starts while earlier answers are still being delivered (see ReplyTail): its Telegram
 * calls and its outbox's messages wait for them. Its own answer's delivery, handed over later, does not wait for
 * itself: the gate is the tail as it is now.
 */
function behindEarlierAnswers(ctx: ChatContext): ChatContext {
  if (!ctx.replies.busy) return ctx;
  const earlier = ctx.replies.settled;
  return { ...ctx, telegram: ctx.telegram.after(earlier), outbox: ctx.outbox.after(earlier) };
}

function answerMessages(
  ctx: ChatContext,
  batch: { ids: number[]; messages: IncomingMessage[]; burst: Burst | undefined },
): Promise<unknown> {
  const { ids, messages, burst } = batch;
  return runTurn(ctx, {
    kind: "chat",
    input: { kind: "telegram", messages },
    inboxIds: ids,
    ...answering(messages),
    ...(burst ? { burst } : {}),
  });
}

async function giveUp(ctx: ChatContext, item: InboxItem): Promise<void> {
  ctx.stores.inbox.finish([item.id], ctx.now(), `gave up after ${MAX_ATTEMPTS} attempts`);
  if (item.kind === "guest") ctx.stores.inbox.erase([item.id]);
  await bestEffort("telling the chat a message was given up", () =>
    ctx.outbox.notify(ctx.target, "⚠️ I could not handle a message after several attempts and gave up on it."),
  );
}

async function answerOne(ctx: ChatContext, item: InboxItem): Promise<void> {
  switch (item.kind) {
    case "stranger":
      return answerStranger(ctx, item.id, item.message);
    case "task":
      return runTask(ctx, item.id, item.task);
    case "helper":
      return deliverHelperReport(ctx, item.id, item.report);
    case "guest":
      try {
        return await answerGuestQuery(ctx, item.id, item.query);
      } finally {
        // Whatever happened, nothing of the other chat stays (the turn's own record erases it too).
        ctx.stores.inbox.erase([item.id]);
      }
    case "message":
      if (!(await handleCommand(ctx, item.message, item.id))) ctx.stores.inbox.finish([item.id], ctx.now());
      return;
    case "unreadable":
      console.warn(`chat ${ctx.chat.id}: inbox row ${item.id} is unreadable (${item.problem}); dropped`);
      ctx.stores.inbox.finish([item.id], ctx.now(), `unreadable: ${item.problem}`);
      return;
    default:
      return assertNever(item, "inbox item");
  }
}

/**
 * Runs one item's work so that its failure (Telegram refusing a reply, D1 down while a task starts) fails that item
 * alone: it is recorded and the chat told, and the items after it go on.
 */
async function contained(ctx: ChatContext, ids: () => readonly number[], work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const detail = redactSecrets(errorText(error));
    console.error(`chat ${ctx.chat.id}: handling a message failed: ${detail}`);
    ctx.stores.inbox.finish(ids(), ctx.now(), `internal: ${detail.slice(0, 300)}`);
    await bestEffort("telling the chat a message failed", () =>
      ctx.outbox.notify(ctx.target, "⚠️ Something went wrong handling that message."),
    );
  }
}
