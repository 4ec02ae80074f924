import type { PaidCallGate } from "../budget/paid-calls.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { errorText } from "../lib/errors.ts";
import { redactSecrets } from "../lib/redact.ts";
import type { ToolStep } from "../reply/steps-summary.ts";
import type { TurnDisplay } from "../reply/turn-display.ts";
import type { ChatContext } from "./chat-context.ts";
import { recordTurn, recordUndelivered, type TurnCost, type TurnEnd } from "./record.ts";
import { speakAnswer, speaks } from "./spoken-answer.ts";
import type { AdmittedTurn } from "./turn-request.ts";
import { handedOverSlot } from "./turn-slots.ts";

/** A turn's answer whose text is final: what is shown, what history keeps (none when withheld), and what it cost. */
export interface FinalText {
  turn: AdmittedTurn;
  config: EffectiveConfig;
  paid: PaidCallGate;
  /** The answer as the chat sees it (with a note when it was cut, refused or filtered). */
  shown: string;
  /** What history keeps: the answer, or nothing when the model declined or the provider filtered it. */
  kept: string | undefined;
  steps: readonly ToolStep[];
  cost: TurnCost;
}

/**
 * Ends a turn whose answer text is final. It is recorded now (history has the answer, its inbox rows are done), and
 * its delivery (the status line's last update, the answer sent or edited into place, the status line removed) is
 * handed over to the chat's ReplyTail: the drain goes on to the next batch, whose model call sees this answer while it
 * is sent. A delivery Telegram refuses amends the record (its inbox rows say so), as a refusal before recording did.
 *
 * A note of the answer is written with the record and cleared once it is delivered (or queued in the outbox): an
 * object that dies in between sends it from its next drain (deliverHandedOver), so delivery stays at least once.
 *
 * A spoken answer is delivered, spoken and recorded before the turn ends, as before: its speech is paid for and
 * counted with its turn, and only an answer whose text went is spoken.
 */
export async function finishAnswer(ctx: ChatContext, display: TurnDisplay, answer: FinalText): Promise<void> {
  const { turn, kept, cost } = answer;
  if (kept !== undefined && speaks(turn, answer.config)) {
    await display.settle();
    const delivery = await display.deliver(answer.shown, answer.steps);
    if (delivery === "sent")
      await speakAnswer(ctx, { request: turn, config: answer.config, paid: answer.paid, text: kept });
    // An answer in the outbox is answered: it is kept, and the turn never runs again.
    recordTurn(ctx, turn, endOf(kept, delivery !== "refused"), cost);
    return;
  }
  recordTurn(ctx, turn, endOf(kept, true), cost);
  // No await since the record: both are written together.
  ctx.stores.meta.set(handedOverSlot, { markdown: answer.shown });
  ctx.replies.hold(async () => {
    try {
      await display.settle();
      const delivery = await display.deliver(answer.shown, answer.steps);
      ctx.stores.meta.delete(handedOverSlot);
      if (delivery === "refused") recordUndelivered(ctx, turn.inboxIds);
    } catch (error) {
      ctx.stores.meta.delete(handedOverSlot);
      const detail = redactSecrets(errorText(error));
      console.error(`chat ${ctx.chat.id}: delivering an answer failed: ${detail}`);
      recordUndelivered(ctx, turn.inboxIds, `internal: ${detail.slice(0, 300)}`);
      await bestEffort("telling the chat a message failed", () =>
        ctx.outbox.notify(ctx.target, "⚠️ Something went wrong handling that message."),
      );
    }
  });
}

/** Whether an answer handed over for delivery was left when the chat's object stopped (see deliverHandedOver). */
export function handedOverLeft(stores: ChatContext["stores"]): boolean {
  return stores.meta.get(handedOverSlot) !== undefined;
}

/**
 * An answer handed over for delivery when the chat's object stopped (it died before the delivery ended): sent now, in
 * the HTML form, before anything newer. It may have reached Telegram already: at most one copy too many, never none.
 */
export async function deliverHandedOver(ctx: ChatContext): Promise<void> {
  const left = ctx.stores.meta.get(handedOverSlot);
  if (left === undefined) return;
  console.warn(`chat ${ctx.chat.id}: an answer's delivery was cut off (the object stopped); sending it again`);
  await ctx.outbox.postMarkdown("answer", ctx.target, left.markdown);
  ctx.stores.meta.delete(handedOverSlot);
}

function endOf(kept: string | undefined, delivered: boolean): TurnEnd {
  return kept === undefined ? { kind: "withheld", delivered } : { kind: "answered", text: kept, delivered };
}
