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
      pieces.push(`${last.length > room ? last.slice(0, room) : last}\n${CUT_NOTE}`);
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
  return pieces.filter((piece) => piece.trim().length > 0);
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
  const code = text.charCodeAt(limit - 1);
  // Do not split a surrogate pair.
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
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
