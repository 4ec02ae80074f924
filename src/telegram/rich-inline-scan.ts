/**
 * The inline scan's look-ups for rich-markdown.ts: where a paragraph ends, code spans, math and links, each bounded
 * so that a long answer is scanned in linear time.
 */

/** How far a link's label, an inline formula or a `\(…\)` is looked for (CommonMark bounds labels at 999). */
const LOOK_AHEAD = 2_000;

/** Where the paragraphs of one text end (its blank lines, found once). */
export class Paragraphs {
  private readonly ends: number[];
  private readonly length: number;

  constructor(text: string) {
    this.ends = [...text.matchAll(/\n[ \t]*\n/g)].map((match) => match.index);
    this.length = text.length;
  }

  /** Where the paragraph that `from` is in ends: at a blank line, or the end of the text. */
  end(from: number): number {
    let low = 0;
    let high = this.ends.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.ends[middle]! < from) low = middle + 1;
      else high = middle;
    }
    return this.ends[low] ?? this.length;
  }

  /** The paragraph's end, or `LOOK_AHEAD` from `from`, whichever is first. */
  near(from: number): number {
    return Math.min(this.end(from), from + LOOK_AHEAD);
  }
}

const BACKTICKS = /`+/y;

/** The length of the run of backticks at `index`. */
export function backticksAt(text: string, index: number): number {
  BACKTICKS.lastIndex = index;
  return BACKTICKS.exec(text)?.[0].length ?? 0;
}

export function isAsciiPunctuation(char: string): boolean {
  return /^[!-/:-@[-`{-~]$/.test(char);
}

export function isCharacter(code: string): boolean {
  const point = code[0] === "x" || code[0] === "X" ? Number.parseInt(code.slice(1), 16) : Number(code);
  return point > 0 && point <= 0x10ffff && !(point >= 0xd800 && point <= 0xdfff);
}

export function isSetextUnderline(text: string, index: number): boolean {
  const start = text.lastIndexOf("\n", index) + 1;
  const end = text.indexOf("\n", index);
  return /^ {0,3}=+[ \t]*$/.test(text.slice(start, end === -1 ? text.length : end));
}

/** Where a code span opened by `length` backticks closes (the start of its closing run), within its paragraph. */
export function closingBackticks(
  text: string,
  from: number,
  length: number,
  paragraphs: Paragraphs,
): number | undefined {
  const end = paragraphs.end(from);
  const runs = /`+/g;
  runs.lastIndex = from;
  for (let match = runs.exec(text); match && match.index < end; match = runs.exec(text)) {
    if (match[0].length === length) return match.index;
  }
  return undefined;
}

/**
 * The end of the math that starts at `index` (a `$`), or undefined when this `$` opens none. `$$…$$` closes within
 * its paragraph; `$…$` by pandoc's rule: no space inside either `$`, and no digit right after the closing one.
 */
export function mathAt(text: string, index: number, paragraphs: Paragraphs): number | undefined {
  if (index > 0 && text[index - 1] === "$") return undefined;
  const end = paragraphs.near(index);
  if (text.startsWith("$$", index)) {
    const close = text.indexOf("$$", index + 2);
    return close > index + 2 && close < end && text.slice(index + 2, close).trim() !== "" ? close + 2 : undefined;
  }
  const first = text[index + 1];
  if (first === undefined || /\s|\$/.test(first)) return undefined;
  for (let at = text.indexOf("$", index + 1); at !== -1 && at < end; at = text.indexOf("$", at + 1)) {
    if (text[at - 1] === "\\") continue;
    if (text[at + 1] === "$") return undefined;
    if (/\s/.test(text[at - 1]!)) continue;
    if (/\d/.test(text[at + 1] ?? "")) return undefined;
    return at + 1;
  }
  return undefined;
}

export interface LinkAt {
  label: string;
  /** The destination, without a title; undefined for `[label]` not followed by `(`. */
  target?: string;
  /** What follows `](` up to the closing parenthesis, as written. */
  rawTarget?: string;
  end: number;
}

/** `[label](target "title")` (or a bare `[label]`) at `index`, within its paragraph. */
export function linkAt(text: string, index: number, paragraphs: Paragraphs): LinkAt | undefined {
  const end = paragraphs.near(index);
  let depth = 0;
  let close = -1;
  for (let at = index; at < end; at++) {
    const char = text[at];
    if (char === "\\") {
      at++;
      continue;
    }
    if (char === "`") {
      const run = backticksAt(text, at);
      const closing = closingBackticks(text, at + run, run, paragraphs);
      if (closing !== undefined) at = closing + run - 1;
      continue;
    }
    if (char === "[") depth++;
    else if (char === "]" && --depth === 0) {
      close = at;
      break;
    }
  }
  if (close === -1) return undefined;
  const label = text.slice(index + 1, close);
  if (text[close + 1] !== "(") return { label, end: close + 1 };
  const target =
    /^\(\s*(<[^>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.|\([^\s()]*\))*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/.exec(
      text.slice(close + 1, end),
    );
  if (!target) return { label, end: close + 1 };
  return {
    label,
    target: target[1]!,
    rawTarget: target[0].slice(1, -1),
    end: close + 1 + target[0].length,
  };
}
