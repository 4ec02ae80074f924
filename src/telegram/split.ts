/** Telegram's limit on a message's text, counted after entity parsing. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;
/** The most messages one answer becomes; the rest is cut with a note. 12 × 4,096 is far more than anyone reads. */
export const MAX_PIECES = 12;
/** A reopened fence keeps at most this much of its info string (the language); a longer one is not a language. */
const MAX_INFO_LENGTH = 32;
export const CUT_NOTE = "… (the rest of this answer was too long for Telegram and was cut)";

/**
 * Splits a long text into pieces of at most `limit` characters, cutting at a paragraph break if one lies in the
 * second half of the window, else at a line break, else at a space, else anywhere (never inside a surrogate pair).
 * A cut inside a fenced code block closes the fence and reopens it, with its language, in the next piece.
 */
export function splitMessage(text: string, limit = TELEGRAM_MESSAGE_LIMIT, maxPieces = MAX_PIECES): string[] {
  const pieces: string[] = [];
  // Room for a closing fence added at the end of a piece.
  const budget = limit - 8;
  // Leading blank lines go, but not the first line's indentation (an indented code block keeps it).
  let rest = text.replace(/^(?:[ \t]*\n)+/, "").trimEnd();
  let reopen = "";
  while (rest.length > 0) {
    if (pieces.length === maxPieces) {
      // Past the cap the last piece ends with a note instead of the rest; a fence it leaves open stays closed.
      const last = pieces.pop() ?? "";
      const room = limit - CUT_NOTE.length - 2;
      pieces.push(`${last.length > room ? last.slice(0, keepPairs(last, room)) : last}\n${CUT_NOTE}`);
      break;
    }
    const available = Math.max(budget - reopen.length, 16);
    let piece: string;
    if (rest.length <= available) {
      piece = rest;
      rest = "";
    } else {
      const cut = cutPoint(rest, available);
      piece = rest.slice(0, cut);
      rest = rest
        .slice(cut)
        .replace(/^[ \t]*\n+/, "")
        .replace(/^ +/, "");
    }
    const full = (reopen + piece).trimEnd();
    const fence = openFenceAtEnd(full);
    pieces.push(fence ? `${full}\n${fence.marker}` : full);
    reopen = fence && rest.length > 0 ? `${fence.marker}${languageOf(fence.info)}\n` : "";
  }
  return pieces.filter((piece) => !isBlankForTelegram(piece));
}

/**
 * Whether Telegram would find no text here: it turns control characters into spaces, drops a few invisible ones
 * (U+2028-U+202E, U+030A, U+0333, U+033F) and trims spaces and line breaks; what is left must not be empty.
 */
export function isBlankForTelegram(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x20 && !(code >= 0x2028 && code <= 0x202e) && !DROPPED_MARKS.has(code)) return false;
  }
  return true;
}

/** Combining marks TDLib drops from every text (clean_input_string). */
const DROPPED_MARKS = new Set([0x030a, 0x0333, 0x033f]);

/**
 * The Markdown with each code fence's over-long info string cut to its language (or nothing): an info string is not
 * shown, and one longer than a message would otherwise fill a piece of its own that renders to nothing.
 */
export function withShortInfoStrings(markdown: string): string {
  let open: { marker: string } | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const match = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(line);
      if (!match) return line;
      const indent = match[1]!;
      const marker = match[2]!;
      const info = match[3]!;
      if (open) {
        if (marker[0] === open.marker[0] && marker.length >= open.marker.length && info.trim() === "") open = undefined;
        return line;
      }
      // A backtick fence's info string has no backtick (else the line is not a fence).
      if (marker[0] === "`" && info.includes("`")) return line;
      open = { marker };
      return info.trim().length > MAX_INFO_LENGTH ? `${indent}${marker}${languageOf(info.trim())}` : line;
    })
    .join("\n");
}

/** The language word of a fence's info string, bounded: a long info string must not shrink every later piece. */
function languageOf(info: string): string {
  const word = /^[\w+#.-]+/.exec(info)?.[0] ?? "";
  return word.length <= MAX_INFO_LENGTH ? word : "";
}

function cutPoint(text: string, limit: number): number {
  const window = text.slice(0, limit + 1);
  const half = Math.floor(limit / 2);
  for (const separator of ["\n\n", "\n", " "]) {
    const at = window.lastIndexOf(separator, limit - separator.length);
    if (at >= half) return at + separator.length;
  }
  return keepPairs(text, limit);
}

/** The text's first `limit` UTF-16 units, one fewer where the cut would split a surrogate pair. */
export function cutText(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, keepPairs(text, limit));
}

/** `end`, or one less where cutting there would split a surrogate pair (Telegram refuses half of one). */
function keepPairs(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** The fence (``` or ~~~, with its info string) still open at the end of a Markdown text, if any. */
function openFenceAtEnd(text: string): { marker: string; info: string } | undefined {
  let open: { marker: string; info: string } | undefined;
  for (const line of text.split("\n")) {
    const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!match) continue;
    const marker = match[1]!;
    if (!open) open = { marker, info: match[2]!.trim() };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && match[2]!.trim() === "")
      open = undefined;
  }
  return open;
}
