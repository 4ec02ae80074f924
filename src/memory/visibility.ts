import { and, eq, inArray, isNotNull, isNull, or, type SQL } from "drizzle-orm";
import { memories } from "../db/d1-schema.ts";

/**
 * Where a turn (or a tool, or `/memory`) reads memories: the chat, whether it is a private chat, and the people who
 * speak in it now (the turn's senders).
 */
export interface MemoryAudience {
  chatId: number;
  isPrivate: boolean;
  speakers: readonly number[];
}

/** What the rule looks at in a stored fact. */
export interface FactPlace {
  chatId: number;
  aboutUser: number | null;
  private: boolean;
}

/**
 * The privacy rule, in one place (`visibleTo` is the same rule in SQL; a unit test holds them together):
 * - a chat's fact is seen in that chat only;
 * - a person's fact is seen only while that person speaks, and never in another person's private chat;
 * - what was said in a chat is seen there (a group's belongs to that group, a private chat's to that chat);
 * - in a group, a person's fact said in their own private chat is seen only when it is not marked private (the
 *   person said it is theirs to be known wherever they talk to the bot); a private one never leaves that chat.
 */
export function canSee(fact: FactPlace, audience: MemoryAudience): boolean {
  if (fact.aboutUser === null) return fact.chatId === audience.chatId;
  if (!audience.speakers.includes(fact.aboutUser)) return false;
  if (audience.isPrivate) return fact.aboutUser === audience.chatId && fact.chatId === audience.chatId;
  return fact.chatId === audience.chatId || (!fact.private && fact.chatId === fact.aboutUser);
}

/** `canSee` as a condition on the `memories` table. */
export function visibleTo(audience: MemoryAudience): SQL {
  const chatFacts = and(isNull(memories.aboutUser), eq(memories.chatId, audience.chatId))!;
  const speakers = audience.isPrivate
    ? audience.speakers.filter((id) => id === audience.chatId)
    : [...audience.speakers];
  if (speakers.length === 0) return chatFacts;
  const place = audience.isPrivate
    ? eq(memories.chatId, audience.chatId)
    : or(
        eq(memories.chatId, audience.chatId),
        and(eq(memories.private, false), eq(memories.chatId, memories.aboutUser)),
      );
  return or(chatFacts, and(inArray(memories.aboutUser, speakers), place))!;
}

/** Only person facts seen here (the prompt's section on the people speaking). */
export function peopleVisibleTo(audience: MemoryAudience): SQL {
  return and(visibleTo(audience), isNotNull(memories.aboutUser))!;
}
