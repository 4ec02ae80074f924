import { errorText } from "../lib/errors.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { notice, type PressAnswer, privately } from "../telegram/press-answer.ts";
import type { ButtonPress } from "../telegram/update.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { pressHelperStop } from "../turn/helpers.ts";
import { PENDING_BUTTON, PENDING_PAGE_BUTTON, showPendingPage } from "../turn/pending-actions.ts";
import { answerConfirmation } from "./confirm-action.ts";
import { isMemoryButton, pressMemoryButton } from "./memory-command.ts";
import { chooseModel, isModelButton, modelChoiceOf, modelMenu, offeredChoices } from "./model-menu.ts";

/** A press of one of this chat's buttons; returns what the presser is told (privately where it is theirs alone). */
export async function pressButton(ctx: ChatContext, press: ButtonPress, byAdmin: boolean): Promise<PressAnswer> {
  if (isModelButton(press.data)) return pressModelButton(ctx, press, byAdmin);
  if (PENDING_BUTTON.test(press.data)) return answerConfirmation(ctx, press, byAdmin);
  if (PENDING_PAGE_BUTTON.test(press.data)) {
    const target: ChatTarget =
      press.threadId === undefined ? { chatId: press.chat.id } : { chatId: press.chat.id, threadId: press.threadId };
    return showPendingPage(ctx, { data: press.data, message: press.message, target });
  }
  if (isMemoryButton(press.data)) return pressMemoryButton(ctx, press, byAdmin);
  const helper = /^hstop:(\d{1,9})$/.exec(press.data);
  if (helper) {
    const said = await pressHelperStop(ctx, { number: Number(helper[1]), userId: press.userId, byAdmin });
    return said === NOT_YOURS ? privately(said) : notice(said);
  }
  const stop = /^stop:(.+)$/.exec(press.data);
  if (!stop) return privately("That button is not known any more.");
  const run = ctx.runs.current;
  if (!run?.accepts(stop[1]!)) return notice("That has already finished.");
  // Whoever started the turn may stop it; in a group, nobody else but an admin.
  if (!run.mayBeStoppedBy(press.userId, byAdmin)) return privately(NOT_YOURS);
  run.stop("stopped");
  return notice("Stopping…");
}

/** What a member is told, privately, when they press someone else's Stop or confirmation. */
const NOT_YOURS = "Only the person who asked, or an admin, can stop this.";

/** A `/model` choice: an admin's press stores it in the chat's config and the menu shows the new state. */
async function pressModelButton(ctx: ChatContext, press: ButtonPress, byAdmin: boolean): Promise<PressAnswer> {
  if (!byAdmin) return privately("Only the bot's admins can change the model.");
  const choice = modelChoiceOf(press.data, await offeredChoices(ctx.served));
  if (!choice) return privately("That model is not offered any more. Send /model again.");
  const refused = await chooseModel(ctx.configs, press.chat.id, choice);
  if (refused) return privately(refused.refused.slice(0, 200));
  const target: ChatTarget =
    press.threadId === undefined ? { chatId: press.chat.id } : { chatId: press.chat.id, threadId: press.threadId };
  const menu = await modelMenu({
    configs: ctx.configs,
    settings: ctx.settings,
    served: ctx.served,
    chatId: press.chat.id,
    withButtons: true,
  });
  await ctx.telegram
    .editPressed(target, press.message, menu.text, menu.keyboard)
    .catch((error: unknown) => console.warn("updating the /model menu failed", errorText(error)));
  return notice(`Now ${choice.provider} · ${choice.model}, from the next message.`);
}
