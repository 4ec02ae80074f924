import { bestEffort } from "../lib/best-effort.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { strangerNoticeAtSlot } from "./command-slots.ts";
import { pairText } from "./pairing.ts";

const STRANGER_NOTICE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * A chat that is not allowed costs no model call: `/pair` gets a pairing code, anything else at most one notice an
 * hour saying how to ask for access (and, when ALLOWED_CHAT_IDS is in use, the chat's id to add there).
 */
export async function answerStranger(ctx: ChatContext, inboxId: number, message: IncomingMessage): Promise<void> {
  const now = ctx.now();
  if (message.command?.name === "pair") {
    const text = await pairText(ctx, message);
    await bestEffort("answering a stranger", () => ctx.telegram.sendMarkdown(ctx.target, text));
    ctx.stores.inbox.finish([inboxId], now);
    return;
  }
  const last = ctx.stores.meta.get(strangerNoticeAtSlot);
  if (last === undefined || now - last >= STRANGER_NOTICE_INTERVAL_MS) {
    ctx.stores.meta.set(strangerNoticeAtSlot, now);
    const listed = ctx.settings.allowedChats.kind === "some" && ctx.settings.allowedChats.ids.size > 0;
    const text = listed
      ? `This bot is private. Send /pair to ask for access (this chat's id is \`${ctx.chat.id}\`).`
      : "This bot is private. Send /pair to ask for access.";
    await bestEffort("answering a stranger", () => ctx.telegram.sendMarkdown(ctx.target, text));
  }
  ctx.stores.inbox.finish([inboxId], now);
}
