import type { PendingActionRequest } from "../tools/context.ts";
import type { ChatContext } from "./chat-context.ts";
import { type PendingAction, pendingActionsSlot } from "./pending-action-slot.ts";

/** A request waits this long for its button; an older press is told it expired. */
const PENDING_TTL_MS = 60 * 60 * 1000;
/** The most requests a chat keeps waiting; older ones are dropped first. */
const MAX_PENDING = 10;

/** The press that answers a request: `confirm:<id>` or `decline:<id>` (well within Telegram's 64 bytes). */
export const PENDING_BUTTON = /^(confirm|decline):([a-z0-9]{12})$/;

/**
 * Holds a tool call back and asks the person: a message saying what it would do and why it needs them, with two
 * buttons that only the people the turn answered (or an admin) can press. Returns what the model is told.
 */
export async function askToConfirm(
  ctx: Pick<ChatContext, "stores" | "telegram" | "target" | "now">,
  request: PendingActionRequest & { askers: readonly number[] },
): Promise<string> {
  const id = pendingId();
  const now = ctx.now();
  const waiting = livePending(ctx.stores.meta.get(pendingActionsSlot), now);
  const action: PendingAction = {
    id,
    tool: request.tool,
    argumentsText: request.argumentsText,
    summary: request.summary.slice(0, 500),
    askers: [...request.askers],
    createdAt: now,
  };
  ctx.stores.meta.set(pendingActionsSlot, [...waiting, action].slice(-MAX_PENDING));
  await ctx.telegram.sendMenu(
    ctx.target,
    `🛡 I was asked to **${request.summary}**. This conversation holds content from outside the chat ` +
      `(${request.source}), which can carry instructions nobody here wrote, so I do that only if you confirm.`,
    [
      [
        { text: "✅ Do it", data: `confirm:${id}` },
        { text: "✖️ No", data: `decline:${id}` },
      ],
    ],
  );
  return (
    `Not done yet: this conversation holds content from outside the chat (${request.source}), so "${request.summary}" ` +
    "needs the person's confirmation. They were asked with a button, and it happens if they press it. Do not call " +
    "the tool again for this; tell them in a few words."
  );
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
