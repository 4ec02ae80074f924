import { bestEffort } from "../lib/best-effort.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import { notice, type PressAnswer, privately } from "../telegram/press-answer.ts";
import type { ButtonPress } from "../telegram/update.ts";
import type { ChatContext } from "../turn/chat-context.ts";
import { openQuestion, QUESTION_BUTTON, takeQuestion } from "../turn/questions.ts";

/** What a tap on a question's choice comes to: what the presser is told, and the turn input it makes, if any. */
export interface QuestionTap {
  answer: PressAnswer;
  /** The person's choice as their next message, for the chat's inbox. */
  choice?: IncomingMessage;
}

export function isQuestionButton(data: string): boolean {
  return QUESTION_BUTTON.test(data);
}

/**
 * A tap on one of ask_user's buttons. In a private chat its person answers; in a group, only the people the asking
 * turn answered, or an admin (anyone else is told privately). The question's message then says who chose what, and
 * the choice goes into the inbox as the presser's message, marked as a choice, so the same conversation goes on.
 */
export async function tapQuestion(ctx: ChatContext, press: ButtonPress, byAdmin: boolean): Promise<QuestionTap> {
  const match = QUESTION_BUTTON.exec(press.data);
  const question = match ? openQuestion(ctx, match[1]!) : undefined;
  if (!match || !question) return { answer: privately("That question has expired or was already answered.") };
  const mayAnswer = ctx.chat.type === "private" || byAdmin || question.askers.includes(press.userId);
  if (!mayAnswer) return { answer: privately("This question is for the person who asked, or an admin.") };
  const choice = question.choices[Number(match[2])];
  if (choice === undefined || !takeQuestion(ctx, question.id)) {
    return { answer: privately("That question has expired or was already answered.") };
  }
  const name = press.userName ?? "Someone";
  const who = ctx.chat.type === "private" ? "" : `${name}: `;
  await bestEffort("marking a question answered", () =>
    ctx.telegram.editPressed(ctx.target, press.message, `❓ ${question.question}\n✅ ${who}${choice}`, []),
  );
  const now = ctx.now();
  return {
    answer: notice(`You chose: ${choice}`),
    choice: {
      updateId: 0,
      messageId: question.messageId,
      chat: ctx.chat,
      ...(ctx.target.threadId !== undefined ? { threadId: ctx.target.threadId } : {}),
      from: { id: press.userId, name },
      text: `[Chose "${choice}" for your question "${question.question}"]`,
      date: Math.floor(now / 1000),
    },
  };
}
