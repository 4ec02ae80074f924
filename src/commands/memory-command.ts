import { bestEffort } from "../lib/best-effort.ts";
import { MemoryRepository, type StoredFact } from "../memory/memory-repository.ts";
import { canSee, type MemoryAudience } from "../memory/visibility.ts";
import type { Keyboard } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { notice, type PressAnswer, privately } from "../telegram/press-answer.ts";
import type { ButtonPress } from "../telegram/update.ts";
import type { ChatContext } from "../turn/chat-context.ts";

/** `mem:<owner>:<fact>`: forget one fact from the owner's /memory list (well within Telegram's 64 bytes). */
const MEMORY_BUTTON = /^mem:(\d{1,15}):(\d{1,15})$/;
/** `memp:<fact>:<0|1>`: the person marks one of their facts private (1) or theirs to use wherever they talk (0). */
const PRIVACY_BUTTON = /^memp:(\d{1,15}):([01])$/;
const SHOWN = 24;
const FACT_CHARS = 200;

export function isMemoryButton(data: string): boolean {
  return MEMORY_BUTTON.test(data) || PRIVACY_BUTTON.test(data);
}

/**
 * `/memory`: what the bot keeps about the person asking and about this chat, with a button to forget each fact. In
 * their private chat a person sees everything kept about them (where each was said, which are private); in a group,
 * only what this group may see (the privacy rule, src/memory/visibility.ts): the list is posted for everyone there.
 */
export async function memoryMenu(
  ctx: ChatContext,
  owner: number | undefined,
): Promise<{ text: string; keyboard: Keyboard }> {
  const memories = new MemoryRepository(ctx.db);
  const isPrivate = ctx.chat.type === "private";
  const audience: MemoryAudience = { chatId: ctx.chat.id, isPrivate, speakers: owner === undefined ? [] : [owner] };
  const about =
    owner === undefined
      ? []
      : isPrivate
        ? await memories.aboutPerson(owner)
        : (await memories.visible(audience, SHOWN * 2)).filter((fact) => fact.aboutUser === owner);
  const chatFacts = await memories.recent(ctx.chat.id, SHOWN);
  const aboutShown = about.slice(0, SHOWN);
  const chatShown = chatFacts.slice(0, SHOWN - Math.min(aboutShown.length, SHOWN / 2));
  const lines: string[] = [];
  lines.push(isPrivate ? "**What I keep about you**" : "**What I keep about you that this group may see**");
  if (aboutShown.length === 0) lines.push("Nothing yet.");
  for (const fact of aboutShown) lines.push(`#${fact.id} ${escaped(fact.content)}${whereSaid(fact, ctx.chat.id)}`);
  if (about.length > aboutShown.length) lines.push(`…and ${about.length - aboutShown.length} more.`);
  lines.push("", isPrivate ? "**This chat's memories**" : "**This group's memories**");
  if (chatShown.length === 0) lines.push("Nothing yet.");
  for (const fact of chatShown) lines.push(`#${fact.id} ${escaped(fact.content)}`);
  const shown = [...aboutShown, ...chatShown];
  if (shown.length > 0) lines.push("", "Press a number to forget that fact.");
  if (isPrivate && aboutShown.length > 0) {
    lines.push("🔒 keeps a fact to this chat; 🔓 lets me use it in the groups where you talk to me.");
  }
  const forget = (fact: StoredFact) => ({ text: `🗑 #${fact.id}`, data: `mem:${owner ?? 0}:${fact.id}` });
  const keyboard: Keyboard = [];
  // In their private chat, a person decides per fact whether it may be used in their groups.
  if (isPrivate) {
    for (const fact of aboutShown) {
      const toggle = fact.private
        ? { text: `🔓 #${fact.id}`, data: `memp:${fact.id}:0` }
        : { text: `🔒 #${fact.id}`, data: `memp:${fact.id}:1` };
      keyboard.push([forget(fact), toggle]);
    }
  }
  const rest = (isPrivate ? chatShown : shown).map(forget);
  for (let index = 0; index < rest.length; index += 4) keyboard.push(rest.slice(index, index + 4));
  return { text: lines.join("\n"), keyboard };
}

/**
 * A press of a /memory button: a person's fact may be forgotten by that person or an admin, a chat's by an admin or
 * whoever wrote it (anyone, in a private chat: it is theirs), and only from a chat where the fact can be seen.
 * Returns what the presser is told; the menu is redrawn without the fact.
 */
export async function pressMemoryButton(ctx: ChatContext, press: ButtonPress, byAdmin: boolean): Promise<PressAnswer> {
  if (PRIVACY_BUTTON.test(press.data)) return pressPrivacyButton(ctx, press);
  const match = MEMORY_BUTTON.exec(press.data);
  if (!match) return privately("That button is not known any more.");
  const owner = Number(match[1]);
  const memories = new MemoryRepository(ctx.db);
  const fact = await memories.byId(Number(match[2]));
  const isPrivate = press.chat.type === "private";
  if (!fact) return notice("That fact is already forgotten.");
  const seenHere = canSee(fact, {
    chatId: press.chat.id,
    isPrivate,
    speakers: fact.aboutUser === null ? [] : [fact.aboutUser],
  });
  // A person's own list in their private chat holds their facts from anywhere.
  const ownList = isPrivate && fact.aboutUser === press.chat.id;
  if (!seenHere && !ownList) return privately("That fact is not kept in this chat.");
  const allowed =
    fact.aboutUser === null
      ? byAdmin || isPrivate || fact.createdBy === press.userId
      : byAdmin || fact.aboutUser === press.userId;
  if (!allowed) return privately("Only the person it is about, or an admin, can forget this.");
  await memories.deleteById(fact.id);
  const target: ChatTarget =
    press.threadId === undefined ? { chatId: press.chat.id } : { chatId: press.chat.id, threadId: press.threadId };
  const menu = await memoryMenu(ctx, owner === 0 ? undefined : owner);
  await bestEffort("redrawing the /memory list", () =>
    ctx.telegram.editPressed(target, press.message, menu.text, menu.keyboard),
  );
  return notice(`Forgot #${fact.id}.`);
}

/**
 * A person's say over one of their facts: private (kept to the chat it was said in) or theirs to be used wherever they
 * talk to the bot. Only the person themself, in their own private chat: not an admin, not anyone in a group.
 */
async function pressPrivacyButton(ctx: ChatContext, press: ButtonPress): Promise<PressAnswer> {
  const match = PRIVACY_BUTTON.exec(press.data);
  if (!match) return privately("That button is not known any more.");
  if (press.chat.type !== "private" || press.chat.id !== press.userId) {
    return privately("Only the person it is about can change this, in their own chat with me.");
  }
  const isPrivate = match[2] === "1";
  const memories = new MemoryRepository(ctx.db);
  if (!(await memories.setPrivate(Number(match[1]), press.userId, isPrivate))) {
    return privately("That fact is not yours, or is gone.");
  }
  const menu = await memoryMenu(ctx, press.userId);
  await bestEffort("redrawing the /memory list", () =>
    ctx.telegram.editPressed({ chatId: press.chat.id }, press.message, menu.text, menu.keyboard),
  );
  return notice(isPrivate ? `#${match[1]} stays in this chat.` : `#${match[1]} may be used where you talk to me.`);
}

function whereSaid(fact: StoredFact, chatId: number): string {
  const notes = [
    ...(fact.chatId === chatId ? [] : [fact.chatId < 0 ? "said in a group" : "said in private"]),
    ...(fact.private ? ["private"] : []),
  ];
  return notes.length === 0 ? "" : ` _(${notes.join(", ")})_`;
}

/** A fact's text as Markdown shows it literally, on one line, bounded. */
function escaped(text: string): string {
  const line = text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ").trim();
  const cut = line.length > FACT_CHARS ? `${line.slice(0, FACT_CHARS)}…` : line;
  return cut.replace(/[\\`*_[\]<>~|#]/g, (character) => `\\${character}`);
}
