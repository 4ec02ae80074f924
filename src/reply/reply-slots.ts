import * as z from "zod";
import { slot } from "../lib/slot.ts";

/** Telegram refused a draft here once: answers stream as an edited message instead. */
export const draftsRefusedSlot = slot("draftsRefused", z.boolean());
/** Telegram refused a rich message here: answers go on the HTML path until then (epoch ms), and why. */
export const richRefusedSlot = slot("richRefused", z.object({ until: z.number(), reason: z.string().max(300) }));
/**
 * Telegram last refused a message here for good (the bot blocked or kicked, the chat gone, a message it will never
 * take): when, and its words. What waited in the outbox then was dropped.
 */
export const telegramRefusedSlot = slot(
  "telegramRefused",
  z.object({ at: z.number(), description: z.string().max(300) }),
);
/** Messages the outbox gave up on (past OUTBOX_MAX_HOURS, or refused): how many, and the last one's reason. */
export const outboxDroppedSlot = slot(
  "outboxDropped",
  z.object({ count: z.number().int(), lastAt: z.number(), reason: z.string().max(300) }),
);
/** What `/health` was last told of this chat's outbox (see config/waiting-outboxes.ts): how many waited, when. */
export const outboxMarkedSlot = slot("outboxMarked", z.object({ waiting: z.number().int(), at: z.number() }));
