import { spendOn } from "../budget/budget.ts";
import { PaidCalls } from "../budget/paid-calls.ts";
import { spendSlot } from "../budget/spend-slot.ts";
import { effectiveConfigOf } from "../config/config-store.ts";
import { dayKey } from "../config/zones.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { notice, type PressAnswer, privately } from "../telegram/press-answer.ts";
import type { ButtonPress } from "../telegram/update.ts";
import { TurnTrust } from "../tools/context.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { argumentsHash } from "../turn/confirmation-view.ts";
import { type PendingAction, pendingActionsSlot } from "../turn/pending-action-slot.ts";
import { PENDING_BUTTON, takePending } from "../turn/pending-actions.ts";
import { toolContext } from "../turn/tool-context.ts";

/**
 * A press of a confirmation's button. Only the people the turn answered, or an admin, may answer it; "Do it" runs
 * the held call now, as the presser, in a context that has read nothing from outside (the person has seen what it
 * does); either way the request message says what became of it, and the conversation records it for the model.
 * Returns what the presser is told.
 */
export async function answerConfirmation(ctx: ChatContext, press: ButtonPress, byAdmin: boolean): Promise<PressAnswer> {
  const match = PENDING_BUTTON.exec(press.data);
  if (!match) return privately("That button is not known any more.");
  const [, answer, id, shownHash] = match;
  const waiting = (ctx.stores.meta.get(pendingActionsSlot) ?? []).find((entry) => entry.id === id);
  if (waiting && !byAdmin && !waiting.askers.includes(press.userId)) {
    return privately("Only the person who asked, or an admin, can answer this.");
  }
  const action = takePending(ctx, id!);
  if (!action) return privately("That request has expired or was already answered.");
  // The press runs the stored call only if it is the one shown: its hash, in the button, checked against the store.
  if (answer === "confirm" && !(await isAsShown(action, shownHash))) {
    await bestEffort("updating a confirmation message", () =>
      ctx.telegram.editPressed(
        ctx.target,
        press.message,
        `✖️ Not done: ${action.summary}. It changed after it was shown.`,
        [],
      ),
    );
    return privately("Not done: what is stored is not what you were shown.");
  }
  const note = async (text: string) =>
    bestEffort("updating a confirmation message", () => ctx.telegram.editPressed(ctx.target, press.message, text, []));
  if (answer === "decline") {
    await note(`✖️ Not done: ${action.summary}.`);
    recordForTheModel(ctx, `[The person declined: ${action.summary}.]`, heldFrom(action));
    return notice("Not done.");
  }
  const { config } = await effectiveConfigOf(ctx.configs, ctx.chat.id, ctx.settings);
  const paid = new PaidCalls(
    { prices: ctx.settings.paid.prices, caps: config.paidCaps, dailyCostUsd: config.budget.dailyCostUsd },
    spendOn(dayKey(ctx.now(), config.timezone), ctx.stores.meta.get(spendSlot)),
  );
  const context = toolContext(ctx, {
    senders: [press.userId],
    trust: new TurnTrust(),
    timezone: config.timezone,
    paid,
    canAsk: false,
  });
  const outcome = await ctx.registry.execute(action.tool, action.argumentsText, context, config.tools);
  const result = outcome.content.replace(/^Error:\s*/, "");
  await note(outcome.isError ? `⚠️ Not done: ${action.summary}. ${result}` : `✅ Done: ${action.summary}. ${result}`);
  // A confirmed fetch brings a page in: its text is marked as outside content, like any tool's.
  recordForTheModel(
    ctx,
    `[The person confirmed: ${action.summary}. ${outcome.isError ? "It failed" : "Result"}: ${result}]`,
    context.trust.untrustedSource ?? heldFrom(action),
  );
  return notice(outcome.isError ? "It could not be done." : "Done.");
}

/** The record of an answer retells the held call, which the turn that read outside content wrote: it is marked. */
function heldFrom(action: PendingAction): string {
  return (action.source ?? "a held action's request").slice(0, 200);
}

async function isAsShown(action: PendingAction, shownHash: string | undefined): Promise<boolean> {
  if (shownHash === undefined || action.argumentsHash !== shownHash) return false;
  return (await argumentsHash(action.argumentsText)) === shownHash;
}

/** The model learns what became of its request in the next turn, from the conversation itself. */
function recordForTheModel(ctx: ChatContext, text: string, outside?: string): void {
  ctx.stores.history.append(
    [{ role: "user", content: text, ...(outside === undefined ? {} : { outside }) }],
    ctx.now(),
  );
}
