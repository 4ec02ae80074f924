import { errorText } from "../lib/errors.ts";
import { MemoryRepository } from "../memory/memory-repository.ts";
import { personFactsNoneSlot } from "../memory/memory-slots.ts";
import { type PersonMemory, peopleInView } from "../memory/people.ts";
import type { ChatContext } from "./chat-context.ts";
import type { AdmittedTurn } from "./turn-request.ts";

/**
 * Who speaks in a turn (its senders, named as their messages name them) and what it may know of them. A turn goes on
 * without them when D1 cannot be read, rather than failing.
 */
export async function speakersOf(ctx: ChatContext, request: AdmittedTurn): Promise<PersonMemory[]> {
  const names = new Map<number, string>();
  if (request.input.kind === "telegram") {
    for (const message of request.input.messages) if (message.from) names.set(message.from.id, message.from.name);
  }
  const isPrivate = ctx.chat.type === "private";
  // A private chat shows only facts its own turns wrote: while it has none, no turn reads D1 for them.
  if (isPrivate && ctx.stores.meta.get(personFactsNoneSlot) === true) return [];
  try {
    const people = await peopleInView(new MemoryRepository(ctx.db), {
      audience: { chatId: ctx.chat.id, isPrivate, speakers: request.senders },
      names,
      maxChars: ctx.settings.personMemoryMaxChars,
    });
    if (isPrivate && people.every((person) => person.facts.length === 0))
      ctx.stores.meta.set(personFactsNoneSlot, true);
    return people;
  } catch (error) {
    console.warn(
      `chat ${ctx.chat.id}: people's memories could not be read; the turn goes on without`,
      errorText(error),
    );
    return [];
  }
}
