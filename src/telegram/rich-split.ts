import { Marked, type Token, type Tokens } from "marked";
import { measureTokens, RICH_BUDGET, RICH_LIMITS, type RichMeasure } from "./rich-limits.ts";
import { CUT_NOTE, cutText, isBlankForTelegram } from "./split.ts";

const lexer = new Marked({ gfm: true });

/** The most rich messages one answer becomes (six of 30,000 characters); the rest is cut with a note. */
export const MAX_RICH_PIECES = 6;

export interface RichBudget {
  characters: number;
  blocks: number;
  depth: number;
}

/** A run of the answer that stays together: one block, or a `<details>` … `</details>` with what it holds. */
interface Unit {
  raw: string;
  measure: RichMeasure;
  /** The block's kind, for cutting one that is too big by itself. */
  kind: "code" | "table" | "list" | "details" | "other";
  token: Token;
}

/**
 * Rich Markdown (see rich-markdown.ts) in pieces that each fit one rich message, cut at block boundaries: a table,
 * a code block or a list is never cut unless it is too big for a message by itself (then a table goes on under its
 * header repeated, a code block in a fence reopened with its language, a list at an item). Undefined when the
 * answer cannot be a rich message at all (nesting deeper than Telegram's 16 levels, a table of more than 20 columns
 * inside a list): it goes on the HTML path instead.
 */
export function splitRich(markdown: string, budget: RichBudget = RICH_BUDGET): string[] | undefined {
  const units = unitsOf(markdown);
  if (units === undefined) return undefined;
  const pieces: string[] = [];
  let current: Unit[] = [];
  let blocks = 0;
  let characters = 0;
  const flush = () => {
    const text = current
      .map((unit) => unit.raw)
      .join("")
      .replace(/^(?:[ \t]*\n)+/, "")
      .trimEnd();
    if (!isBlankForTelegram(text)) pieces.push(text);
    current = [];
    blocks = 0;
    characters = 0;
  };
  const place = (unit: Unit, depth: number): boolean => {
    if (unit.measure.depth > budget.depth || unit.measure.columns > RICH_LIMITS.columns) return false;
    if (blocks + unit.measure.blocks <= budget.blocks && characters + unit.raw.length <= budget.characters) {
      current.push(unit);
      blocks += unit.measure.blocks;
      characters += unit.raw.length;
      return true;
    }
    if (current.length > 0) flush();
    if (unit.measure.blocks <= budget.blocks && unit.raw.length <= budget.characters) return place(unit, depth);
    // Too big for a message by itself: cut into smaller units (each cut makes them smaller; a few levels suffice).
    if (depth > 6) return false;
    const parts = cutUnit(unit, budget);
    return parts?.every((part) => place(part, depth + 1)) ?? false;
  };
  for (const unit of units) {
    if (!place(unit, 0)) return undefined;
  }
  flush();
  if (pieces.length <= MAX_RICH_PIECES) return pieces;
  const kept = pieces.slice(0, MAX_RICH_PIECES);
  kept[kept.length - 1] = `${kept.at(-1)}\n\n${CUT_NOTE}`;
  return kept;
}

/** The answer's top-level blocks as units; a `<details>` block and what it holds are one. */
function unitsOf(markdown: string): Unit[] | undefined {
  const units: Unit[] = [];
  let offset = 0;
  let group: { tokens: Token[]; raw: string; open: number } | undefined;
  for (const token of lexer.lexer(markdown)) {
    const raw = markdown.slice(offset, offset + token.raw.length);
    offset += token.raw.length;
    if (token.type === "space" && units.length > 0 && !group) {
      units[units.length - 1]!.raw += raw;
      continue;
    }
    const balance = token.type === "html" ? containerBalance(token.raw) : 0;
    if (group) {
      group.tokens.push(token);
      group.raw += raw;
      group.open += balance;
      if (group.open <= 0) {
        units.push({ raw: group.raw, measure: measureTokens(group.tokens), kind: "details", token });
        group = undefined;
      }
      continue;
    }
    if (balance > 0) {
      group = { tokens: [token], raw, open: balance };
      continue;
    }
    units.push(unitOf(token, raw));
  }
  if (group)
    units.push({ raw: group.raw, measure: measureTokens(group.tokens), kind: "details", token: group.tokens[0]! });
  return units;
}

function unitOf(token: Token, raw: string): Unit {
  const kind = token.type === "code" || token.type === "table" || token.type === "list" ? token.type : "other";
  return { raw, measure: measureTokens([token]), kind, token };
}

function containerBalance(html: string): number {
  let balance = 0;
  for (const match of html.matchAll(/<(\/?)(details|tg-thinking|blockquote)\b[^>]*?(\/?)>/gi)) {
    if (!match[3]) balance += match[1] ? -1 : 1;
  }
  return balance;
}

/** Lexes a run of Markdown cut from a bigger unit, as its own unit(s). */
function relexed(raw: string): Unit[] {
  return unitsOf(raw) ?? [];
}

/** A unit too big for one message, cut into smaller ones; undefined when it cannot be (a huge `<details>`). */
function cutUnit(unit: Unit, budget: RichBudget): Unit[] | undefined {
  const room = { characters: budget.characters - 200, blocks: budget.blocks - 4 };
  switch (unit.kind) {
    case "code":
      return cutCode(unit.raw, room.characters);
    case "table":
      return cutTable(unit.raw, room);
    case "list":
      return cutList(unit, room);
    case "details":
      return undefined;
    case "other":
      return cutLines(unit.raw, room);
  }
}

/** A code block in fences reopened with the same info string, cut at lines (a line longer than a piece, anywhere). */
function cutCode(raw: string, characters: number): Unit[] {
  const lines = raw.trimEnd().split("\n");
  const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[0] ?? "");
  if (!open) return cutLines(raw, { characters, blocks: 1 });
  const marker = open[1]!;
  const last = lines.at(-1) ?? "";
  const closed =
    lines.length > 1 && new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}\\s*$`).test(last);
  const body = lines.slice(1, closed ? -1 : undefined);
  const room = characters - lines[0]!.length - marker.length - 4;
  const chunks: string[][] = [[]];
  let size = 0;
  for (const line of body.flatMap((line) => cutLong(line, room))) {
    if (size + line.length + 1 > room && chunks.at(-1)!.length > 0) {
      chunks.push([]);
      size = 0;
    }
    chunks.at(-1)!.push(line);
    size += line.length + 1;
  }
  return chunks.flatMap((chunk) => relexed(`${lines[0]}\n${chunk.join("\n")}\n${marker}\n\n`));
}

/** A table's rows in tables of their own, each under the header (and its alignment row) again. */
function cutTable(raw: string, room: { characters: number; blocks: number }): Unit[] {
  const lines = raw.trimEnd().split("\n");
  const head = `${lines[0]}\n${lines[1]}\n`;
  const units: Unit[] = [];
  let rows: string[] = [];
  let size = head.length;
  const flush = () => {
    if (rows.length > 0) units.push(...relexed(`${head}${rows.join("\n")}\n\n`));
    rows = [];
    size = head.length;
  };
  for (const row of lines.slice(2)) {
    // The table and its header row are two blocks besides the rows.
    if (rows.length > 0 && (rows.length + 2 >= room.blocks || size + row.length + 1 > room.characters)) flush();
    rows.push(row.length > room.characters - head.length ? cutText(row, room.characters - head.length) : row);
    size += row.length + 1;
  }
  flush();
  return units;
}

/** A list cut at its items (an ordered list goes on numbered where it was); an item too big, at its lines. */
function cutList(unit: Unit, room: { characters: number; blocks: number }): Unit[] {
  const list = unit.token as Tokens.List;
  const start = typeof list.start === "number" ? list.start : 1;
  const units: Unit[] = [];
  let offset = 0;
  for (const [index, item] of list.items.entries()) {
    let raw = unit.raw.slice(offset, offset + item.raw.length);
    offset += item.raw.length;
    if (index === list.items.length - 1) raw += unit.raw.slice(offset);
    // Each item's own list; numbered as it was in the whole list.
    if (list.ordered) raw = raw.replace(/^(\s*)\d{1,9}([.)])/, `$1${start + index}$2`);
    const parts = relexed(`${raw.trimEnd()}\n\n`);
    for (const part of parts) {
      if (part.measure.blocks > room.blocks || part.raw.length > room.characters)
        units.push(...cutLines(part.raw, room));
      else units.push(part);
    }
  }
  return units;
}

/** Lines in runs that fit (a line longer than a piece, at spaces or anywhere), each run lexed again. */
function cutLines(raw: string, room: { characters: number; blocks: number }): Unit[] {
  const lines = raw
    .trimEnd()
    .split("\n")
    .flatMap((line) => cutLong(line, room.characters));
  const units: Unit[] = [];
  let run: string[] = [];
  let size = 0;
  // Each line may be a block of its own (a quote's lines, a list's items): a run holds at most a budget of them.
  const most = Math.max(1, Math.floor(room.blocks / 4));
  for (const line of lines) {
    if (run.length > 0 && (size + line.length + 1 > room.characters || run.length >= most)) {
      units.push(...relexed(`${run.join("\n")}\n\n`));
      run = [];
      size = 0;
    }
    run.push(line);
    size += line.length + 1;
  }
  if (run.length > 0) units.push(...relexed(`${run.join("\n")}\n\n`));
  return units;
}

/** A line cut to at most `length` characters a part: at the last space in the second half, else anywhere. */
function cutLong(line: string, length: number): string[] {
  const parts: string[] = [];
  let rest = line;
  while (rest.length > length) {
    const space = rest.lastIndexOf(" ", length);
    const cut = space >= length / 2 ? space : cutText(rest, length).length;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^ /, "");
  }
  parts.push(rest);
  return parts;
}
