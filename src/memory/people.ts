import type { MemoryRepository, StoredFact } from "./memory-repository.ts";
import type { MemoryAudience } from "./visibility.ts";

/** What a turn knows of one person speaking in it, within the privacy rule (visibility.ts). */
export interface PersonMemory {
  userId: number;
  /** Their Telegram display name, as they chose it (quoted as data where shown). */
  name: string | undefined;
  facts: readonly Pick<StoredFact, "id" | "content" | "private" | "outside">[];
}

/** The most facts read for one turn before they are cut to each person's share of characters. */
const READ_LIMIT = 400;

/**
 * The people speaking in a turn and what it may know of them: each speaker's facts seen here, newest first, cut to
 * `maxChars` of content per person (consolidation keeps a person's memory under it; this holds even before it runs).
 */
export async function peopleInView(
  memories: MemoryRepository,
  input: { audience: MemoryAudience; names: ReadonlyMap<number, string>; maxChars: number },
): Promise<PersonMemory[]> {
  const { audience, names, maxChars } = input;
  if (audience.speakers.length === 0) return [];
  const facts = await memories.people(audience, READ_LIMIT);
  return [...new Set(audience.speakers)].map((userId) => {
    let room = maxChars;
    const kept: PersonMemory["facts"][number][] = [];
    for (const fact of facts) {
      if (fact.aboutUser !== userId || fact.content.length > room) continue;
      room -= fact.content.length;
      kept.push({ id: fact.id, content: fact.content, private: fact.private, outside: fact.outside });
    }
    return { userId, name: names.get(userId), facts: kept };
  });
}

/** Where a person's fact came from outside content, for the turn's provenance; undefined when none did. */
export function outsideOfPeople(people: readonly PersonMemory[]): string | undefined {
  for (const person of people) {
    const outside = person.facts.find((fact) => fact.outside !== null)?.outside;
    if (outside) return `a remembered fact about a person written after reading ${outside}`;
  }
  return undefined;
}

/**
 * The system prompt's section on who is speaking and what is known of them. In a group it names every speaker (id and
 * name) even with nothing known, so the model can tell people apart; the names and facts are quoted as data.
 */
export function peopleSection(people: readonly PersonMemory[], isPrivate: boolean): string | undefined {
  const shown = isPrivate ? people.filter((person) => person.facts.length > 0) : people;
  if (shown.length === 0) return undefined;
  const lines = [
    isPrivate
      ? "What you remember of the person you are talking with (ids are for forget):"
      : "The people speaking to you now, and what you remember of each (only their own facts they let you use " +
        "here; ids are for forget):",
  ];
  for (const person of shown) {
    const name = person.name === undefined ? "someone" : JSON.stringify(oneLine(person.name).slice(0, 64));
    lines.push(`- ${name} (user id ${person.userId})${person.facts.length === 0 ? ": nothing remembered yet" : ":"}`);
    for (const fact of person.facts) {
      lines.push(`  - #${fact.id}${fact.private ? " (private: this chat only)" : ""} ${oneLine(fact.content)}`);
    }
  }
  return lines.join("\n");
}

function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ").trim();
}
