import { type Reading, readingOf } from "./knob.ts";

/** A list of chat or user ids from a comma-separated value; `*` means everyone. */
export type IdList = { kind: "everyone" } | { kind: "some"; ids: ReadonlySet<number> };

/** Reads ids, dropping (and naming) entries that are not ids; `*` only where everyone may be meant. */
export function idListOf(text: string, everyoneAllowed: boolean): Reading<IdList> {
  if (text === "*") {
    // Everyone an admin would make every member of every allowed chat an admin: refused, not guessed.
    return everyoneAllowed ? readingOf({ kind: "everyone" }) : { ok: false, problem: "cannot be *: list the ids" };
  }
  const ids = new Set<number>();
  const problems: string[] = [];
  for (const part of text.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const id = Number(item);
    if (/^-?\d+$/.test(item) && Number.isSafeInteger(id)) ids.add(id);
    else problems.push("has an entry that is not a chat or user id");
  }
  return readingOf({ kind: "some", ids }, problems);
}

export function includes(list: IdList, id: number): boolean {
  return list.kind === "everyone" || list.ids.has(id);
}
