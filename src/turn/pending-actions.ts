import { chatTitleOf } from "../db/chat-directory.ts";
import { parseToolArguments } from "../protocol/messages.ts";
import { describeTask } from "../tasks/describe-task.ts";
import { TaskRepository } from "../tasks/task-repository.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { notice, type PressAnswer, privately } from "../telegram/press-answer.ts";
import type { PressedMessage } from "../telegram/update.ts";
import type { PendingActionRequest } from "../tools/context.ts";
import type { ChatContext } from "./chat-context.ts";
import {
  argumentsHash,
  confirmationKeyboard,
  confirmationPage,
  detailOf,
  type HeldCallFacts,
  pageCount,
} from "./confirmation-view.ts";
import { type PendingAction, pendingActionsSlot } from "./pending-action-slot.ts";

/** A request waits this long for its button; an older press is told it expired. */
const PENDING_TTL_MS = 60 * 60 * 1000;
/** The most requests a chat keeps waiting; older ones are dropped first. */
const MAX_PENDING = 10;

/**
 * The press that answers a request: `confirm:<id>:<hash of the arguments shown>` or `decline:<id>` (within Telegram's
 * 64 bytes); `cpage:<id>:<page>` turns the request's pages.
 */
export const PENDING_BUTTON = /^(confirm|decline):([a-z0-9]{12})(?::([0-9a-f]{16}))?$/;
export const PENDING_PAGE_BUTTON = /^cpage:([a-z0-9]{12}):(\d{1,2})$/;

type AskingContext = Pick<ChatContext, "stores" | "outbox" | "target" | "now" | "db">;

/**
 * Holds a tool call back and asks the person: a message saying what it would do and why it needs them, the whole of
 * what will run (confirmation-view.ts), with two buttons that only the people the turn answered (or an admin) can
 * press. Returns what the model is told.
 */
export async function askToConfirm(
  ctx: AskingContext,
  request: PendingActionRequest & { askers: readonly number[] },
): Promise<string> {
  const id = pendingId();
  const now = ctx.now();
  const waiting = livePending(ctx.stores.meta.get(pendingActionsSlot), now);
  const header =
    `🛡 I was asked to **${request.summary}**. This conversation holds content from outside the chat ` +
    `(${request.source}), which can carry instructions nobody here wrote, so I do that only if you confirm.`;
  const detail = detailOf(await factsOf(ctx, request));
  const hash = await argumentsHash(request.argumentsText);
  const action: PendingAction = {
    id,
    tool: request.tool,
    argumentsText: request.argumentsText,
    summary: request.summary.slice(0, 500),
    askers: [...request.askers],
    createdAt: now,
    view: { header: header.slice(0, 4000), detail },
    source: request.source.slice(0, 500),
    argumentsHash: hash,
  };
  ctx.stores.meta.set(pendingActionsSlot, [...waiting, action].slice(-MAX_PENDING));
  // Through the outbox: an outage keeps the question (and its buttons) in order, rather than losing it.
  await ctx.outbox.postMenu(
    "notice",
    ctx.target,
    confirmationPage({ header, detail, hash, page: 0 }),
    confirmationKeyboard({ id, hash, page: 0, pages: pageCount(detail) }),
  );
  return (
    `Not done yet: this conversation holds content from outside the chat (${request.source}), so "${request.summary}" ` +
    "needs the person's confirmation. They were asked with a button, and it happens if they press it. Do not call " +
    "the tool again for this; tell them in a few words."
  );
}

/** A press of a request's page button: the message shows that page. Returns what the presser is told. */
export async function showPendingPage(
  ctx: Pick<ChatContext, "stores" | "telegram" | "now">,
  press: { data: string; message: PressedMessage; target: ChatTarget },
): Promise<PressAnswer> {
  const match = PENDING_PAGE_BUTTON.exec(press.data);
  const action = livePending(ctx.stores.meta.get(pendingActionsSlot), ctx.now()).find(
    (entry) => entry.id === match?.[1],
  );
  if (!match || !action?.view || !action.argumentsHash)
    return privately("That request has expired or was already answered.");
  const page = Number(match[2]);
  const { header, detail } = action.view;
  const hash = action.argumentsHash;
  await ctx.telegram.editPressed(
    press.target,
    press.message,
    confirmationPage({ header, detail, hash, page }),
    confirmationKeyboard({ id: action.id, hash, page, pages: pageCount(detail) }),
  );
  return notice(`Page ${Math.min(page + 1, pageCount(detail))} of ${pageCount(detail)}.`);
}

/** What the chat knows of the places a held call names: the chat it sends to, the task it changes. */
async function factsOf(ctx: AskingContext, request: PendingActionRequest): Promise<HeldCallFacts> {
  const args = parseToolArguments(request.argumentsText);
  const chatId = typeof args.chatId === "number" ? args.chatId : undefined;
  const taskId = typeof args.taskId === "number" ? args.taskId : undefined;
  const task = taskId === undefined ? undefined : await new TaskRepository(ctx.db).byId(taskId);
  return {
    tool: request.tool,
    args,
    chatName: chatId === undefined ? undefined : await chatTitleOf(ctx.db, chatId),
    // Only a task of this chat is described (another chat's is not this chat's to read).
    task: task && task.chatId === ctx.target.chatId ? { prompt: task.prompt, schedule: describeTask(task) } : undefined,
  };
}

/** Takes the request a press names out of the waiting list, if it is still waiting. */
export function takePending(ctx: Pick<ChatContext, "stores" | "now">, id: string): PendingAction | undefined {
  const waiting = livePending(ctx.stores.meta.get(pendingActionsSlot), ctx.now());
  const action = waiting.find((entry) => entry.id === id);
  if (action)
    ctx.stores.meta.set(
      pendingActionsSlot,
      waiting.filter((entry) => entry.id !== id),
    );
  return action;
}

function livePending(stored: PendingAction[] | undefined, now: number): PendingAction[] {
  return (stored ?? []).filter((entry) => now - entry.createdAt < PENDING_TTL_MS);
}

function pendingId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join("");
}
