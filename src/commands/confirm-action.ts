import { spendOn } from "../budget/budget.ts";
import { PaidCalls } from "../budget/paid-calls.ts";
import { spendSlot } from "../budget/spend-slot.ts";
import { effectiveConfigOf } from "../config/config-store.ts";
import { dayKey } from "../config/zones.ts";
import { bestEffort } from "../lib/best-effort.ts";
import type { ButtonPress } from "../telegram/update.ts";
import { TurnTrust } from "../tools/context.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { pendingActionsSlot } from "../turn/pending-action-slot.ts";
import { PENDING_BUTTON, takePending } from "../turn/pending-actions.ts";
import { toolContext } from "../turn/tool-context.ts";

/**
 * A press of a confirmation's button. Only the people the turn answered, or an admin, may answer it; "Do it" runs
 * the held call now, as the presser, in a context that has read nothing from outside (the person has seen what it
 * does); either way the request message says what became of it, and the conversation records it for the model.
 * Returns what the presser is told.
 */
export async function answerConfirmation(ctx: ChatContext, press: ButtonPress, byAdmin: boolean): Promise<string> {
  const match = PENDING_BUTTON.exec(press.data);
  if (!match) return "That button is not known any more.";
  const [, answer, id] = match;
  const waiting = (ctx.stores.meta.get(pendingActionsSlot) ?? []).find((entry) => entry.id === id);
  if (waiting && !byAdmin && !waiting.askers.includes(press.userId)) {
    return "Only the person who asked, or an admin, can answer this.";
  }
  const action = takePending(ctx, id!);
  if (!action) return "That request has expired or was already answered.";
  const note = async (text: string) =>
    bestEffort("updating a confirmation message", () => ctx.telegram.editMenu(ctx.target, press.messageId, text, []));
  if (answer === "decline") {
    await note(`✖️ Not done: ${action.summary}.`);
    recordForTheModel(ctx, `[The person declined: ${action.summary}.]`);
    return "Not done.";
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
  recordForTheModel(
    ctx,
    `[The person confirmed: ${action.summary}. ${outcome.isError ? "It failed" : "Result"}: ${result}]`,
  );
  return outcome.isError ? "It could not be done." : "Done.";
}

/** The model learns what became of its request in the next turn, from the conversation itself. */
function recordForTheModel(ctx: ChatContext, text: string): void {
  ctx.stores.history.append([{ role: "user", content: text }], ctx.now());
}
