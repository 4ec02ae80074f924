import { bestEffort } from "../lib/best-effort.ts";
import type { QuestionRequest } from "../tools/context.ts";
import type { ChatContext } from "./chat-context.ts";
import { type OpenQuestion, questionsSlot } from "./question-slot.ts";

/** A question waits this long for a tap, then its message says it expired and its buttons go. */
const QUESTION_TTL_MS = 24 * 60 * 60 * 1000;
/** The most questions a chat keeps open; asking one more expires the oldest. */
const MAX_OPEN = 10;

/** A tap on a question's choice: `ask:<question id>:<choice index>` (well within Telegram's 64 bytes). */
export const QUESTION_BUTTON = /^ask:([a-z0-9]{10}):([0-7])$/;

type QuestionContext = Pick<ChatContext, "stores" | "telegram" | "target" | "now">;

/**
 * Sends the question with one button per choice (two a row when they are short) and keeps it open, for the people the
 * turn answered (or an admin) to tap. Returns what the model is told.
 */
export async function askQuestion(
  ctx: QuestionContext,
  request: QuestionRequest & { askers: readonly number[] },
): Promise<string> {
  const now = ctx.now();
  const id = questionId();
  const short = request.choices.every((choice) => choice.length <= 18);
  const buttons = request.choices.map((choice, index) => ({ text: choice, data: `ask:${id}:${index}` }));
  const keyboard = short ? pairs(buttons) : buttons.map((button) => [button]);
  const messageId = await ctx.telegram.sendMenu(ctx.target, `❓ ${request.question}`, keyboard);
  const open = ctx.stores.meta.get(questionsSlot) ?? [];
  const question: OpenQuestion = {
    id,
    question: request.question,
    choices: [...request.choices],
    askers: [...request.askers],
    messageId,
    askedAt: now,
    expiresAt: now + QUESTION_TTL_MS,
  };
  const kept = [...open, question];
  for (const dropped of kept.splice(0, Math.max(0, kept.length - MAX_OPEN))) await markExpired(ctx, dropped);
  ctx.stores.meta.set(questionsSlot, kept);
  return (
    `Asked with ${request.choices.length} buttons. Their tap comes back as their next message. ` +
    "End your turn now with at most one short line; do not answer the question yourself."
  );
}

/** Takes the question a tap names out of the open ones (undefined: unknown, answered or expired). */
export function takeQuestion(ctx: Pick<ChatContext, "stores" | "now">, id: string): OpenQuestion | undefined {
  const open = ctx.stores.meta.get(questionsSlot) ?? [];
  const question = open.find((entry) => entry.id === id && entry.expiresAt > ctx.now());
  if (question) {
    ctx.stores.meta.set(
      questionsSlot,
      open.filter((entry) => entry.id !== id),
    );
  }
  return question;
}

/** An open question a tap names, without taking it (who may answer is checked first). */
export function openQuestion(ctx: Pick<ChatContext, "stores" | "now">, id: string): OpenQuestion | undefined {
  return (ctx.stores.meta.get(questionsSlot) ?? []).find((entry) => entry.id === id && entry.expiresAt > ctx.now());
}

/** When the next open question expires, for the chat's alarm; undefined when none is open. */
export function nextQuestionExpiry(ctx: Pick<ChatContext, "stores">): number | undefined {
  const open = ctx.stores.meta.get(questionsSlot) ?? [];
  return open.length === 0 ? undefined : Math.min(...open.map((question) => question.expiresAt));
}

/**
 * Ends the questions whose time is up: each message says so and loses its buttons, and the conversation records it,
 * so the model knows the question went unanswered.
 */
export async function expireQuestions(ctx: QuestionContext): Promise<void> {
  const open = ctx.stores.meta.get(questionsSlot) ?? [];
  const now = ctx.now();
  const due = open.filter((question) => question.expiresAt <= now);
  if (due.length === 0) return;
  ctx.stores.meta.set(
    questionsSlot,
    open.filter((question) => question.expiresAt > now),
  );
  for (const question of due) await markExpired(ctx, question);
}

async function markExpired(ctx: QuestionContext, question: OpenQuestion): Promise<void> {
  await bestEffort("marking a question expired", () =>
    ctx.telegram.editMenu(ctx.target, question.messageId, `❓ ${question.question}\n⌛ No answer in time.`, []),
  );
  ctx.stores.history.append(
    [{ role: "user", content: `[Your question "${question.question}" expired without an answer.]` }],
    ctx.now(),
  );
}

function pairs<T>(items: T[]): T[][] {
  const rows: T[][] = [];
  for (let index = 0; index < items.length; index += 2) rows.push(items.slice(index, index + 2));
  return rows;
}

function questionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return Array.from(bytes, (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join("");
}
